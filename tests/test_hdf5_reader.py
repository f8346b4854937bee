"""The low-level HDF5 reader (datasets/hdf5_reader.py) reads what Minari's reader reads: the same
arrays in the same dtypes and the same metadata, for our compact layout and for episodes Minari
itself appended; what it does not handle goes through Minari, and damage is named with its place."""

import h5py
import minari
import numpy as np
import pytest
from minari_common import episode_buffers
from test_storage_layout import write

from imaginebench_data.datasets import hdf5_reader
from imaginebench_data.datasets.hdf5_layout import MAIN_FILE
from imaginebench_data.datasets.read import StoredEpisodeError, stored_episodes
from imaginebench_data.domains import get_domain


def assert_same(fast, slow, where: str) -> None:
    """Equal values of equal types, arrays with equal dtype and shape, recursively."""
    if isinstance(slow, dict):
        assert isinstance(fast, dict) and sorted(fast) == sorted(slow), where
        for key in slow:
            assert_same(fast[key], slow[key], f"{where}/{key}")
    elif isinstance(slow, np.ndarray):
        assert isinstance(fast, np.ndarray), where
        assert (fast.dtype, fast.shape) == (slow.dtype, slow.shape), where
        assert np.array_equal(fast, slow), where
    else:
        assert type(fast) is type(slow) and fast == slow, where


def minari_read(dataset: minari.MinariDataset) -> list[tuple[dict, dict]]:
    indices = list(dataset.episode_indices)
    return list(zip(dataset.storage.get_episodes(indices), dataset.storage.get_episode_metadata(indices)))


def fast_read(dataset: minari.MinariDataset) -> list[tuple[dict, dict]]:
    with hdf5_reader.EpisodeReader(dataset.storage.data_path / MAIN_FILE) as reader:
        return [reader.read(index) for index in dataset.episode_indices]


def compare(dataset: minari.MinariDataset) -> None:
    slow_all, fast_all = minari_read(dataset), fast_read(dataset)
    assert len(fast_all) == len(slow_all) == dataset.total_episodes
    for (fast, fast_meta), (slow, slow_meta) in zip(fast_all, slow_all):
        where = f"episode {slow['id']}"
        # Minari decodes the instruction strings; the reader leaves them as the stored bytes
        texts = fast["observations"].pop("instruction")
        assert [t.decode("utf-8") for t in texts] == slow["observations"].pop("instruction"), where
        assert_same(fast, slow, where)
        assert_same(fast_meta, slow_meta, where + " metadata")


@pytest.mark.parametrize("domain_name", ["clevr", "halfcheetah"])
def test_reads_what_minari_reads_from_the_compact_layout(minari_root, domain_name):
    dataset_id, _ = write(domain_name, 12)
    compare(minari.load_dataset(dataset_id))


def test_reads_what_minari_reads_from_episodes_minari_appended(minari_root):
    dataset_id, _ = write("halfcheetah", 6)
    dataset = minari.load_dataset(dataset_id)
    dataset.update_dataset_from_buffer(episode_buffers(dataset))  # chunked arrays, variable-length strings
    dataset = minari.load_dataset(dataset_id)
    assert dataset.total_episodes == 12
    with h5py.File(dataset.storage.data_path / MAIN_FILE) as file:  # Minari's own layout, read as such
        assert file["episode_9/rewards"].chunks is not None
        assert h5py.check_string_dtype(file["episode_9/observations/instruction"].dtype).length is None
    compare(dataset)


def test_what_it_does_not_handle_is_read_by_minari(minari_root):
    dataset_id, written = write("clevr", 4)
    dataset = minari.load_dataset(dataset_id)
    with h5py.File(dataset.storage.data_path / MAIN_FILE, "a") as file:  # nested infos: Minari's, not ours
        file["episode_2/infos"].create_group("nested").create_dataset("depth", data=np.arange(21))
    with hdf5_reader.EpisodeReader(dataset.storage.data_path / MAIN_FILE) as reader:
        reader.read(1)
        with pytest.raises(hdf5_reader.NotHandled, match="infos/nested"):
            reader.read(2)
    episodes = list(stored_episodes(dataset, get_domain("clevr")))
    assert len(episodes) == 4
    assert np.array_equal(episodes[2].infos["nested"].item()["depth"], np.arange(21))  # Minari's nested dict
    assert np.array_equal(episodes[3].states, written[3].states)


def test_a_missing_episode_is_named_with_its_file(minari_root):
    dataset_id, _ = write("clevr", 3)
    dataset = minari.load_dataset(dataset_id)
    with h5py.File(dataset.storage.data_path / MAIN_FILE, "a") as file:
        del file["episode_1/rewards"]
    episodes = stored_episodes(dataset, get_domain("clevr"))
    next(episodes)
    with pytest.raises(StoredEpisodeError, match=r"main_data\.hdf5: episode_1: .*rewards"):
        next(episodes)


def test_damaged_bytes_give_the_episodes_or_one_line_naming_the_place(minari_root):
    """Fuzz: random bytes of a small file overwritten, 150 times. Each read gives the written
    episodes or a StoredEpisodeError naming the file (in HDF5's words), nothing else."""
    dataset_id, written = write("clevr", 6)
    dataset = minari.load_dataset(dataset_id)
    path = dataset.storage.data_path / MAIN_FILE
    clean, rng = path.read_bytes(), np.random.default_rng(0)
    outcomes = {"same": 0, "refused": 0}
    for _ in range(150):
        data = bytearray(clean)
        for place in rng.integers(0, len(data), 4):
            data[place] = rng.integers(0, 256)
        path.write_bytes(bytes(data))
        try:
            episodes = list(stored_episodes(dataset, get_domain("clevr")))
        except StoredEpisodeError as error:
            assert str(error).startswith(str(path)) and "\n" not in str(error)
            outcomes["refused"] += 1
            continue
        assert len(episodes) == 6
        assert all(np.array_equal(a.states, b.states) for a, b in zip(episodes, written))
        outcomes["same"] += 1
    assert outcomes["refused"] > 100  # HDF5's metadata checksums catch most damage
