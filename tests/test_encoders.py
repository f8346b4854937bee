"""Instruction encoders: the shipped MiniLM, any local Hugging Face directory, None."""

from __future__ import annotations

import numpy as np
import pytest

from imaginebench_data.loader import HFEncoder, get_encoder


def test_minilm_embeddings():
    encoder = get_encoder("minilm")
    assert encoder is get_encoder()  # the default, loaded once
    assert encoder.name == "minilm" and encoder.dim == 384
    texts = ["push the red ball to the left", "move the red ball to the left",
             "gather all balls around the green ball"]
    emb = encoder.encode(texts)
    assert emb.shape == (3, 384) and emb.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    cos = emb @ emb.T
    assert cos[0, 1] > cos[0, 2] + 0.1
    assert cos[0, 1] > 0.8
    np.testing.assert_allclose(encoder.encode(texts[::-1]), emb[::-1])
    assert encoder.encode([]).shape == (0, 384)


@pytest.fixture(scope="module")
def tiny_bert(tmp_path_factory):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    path = tmp_path_factory.mktemp("tiny-bert")
    words = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "push", "move", "the", "red", "blue",
             "green", "ball", "to", "left", "right", "all", "balls", "around", "gather", "."]
    vocab = path / "vocab.txt"
    vocab.write_text("\n".join(words) + "\n")
    tokenizer = BertTokenizerFast(vocab_file=str(vocab))
    config = BertConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                        vocab_size=len(words), max_position_embeddings=64)
    BertModel(config).save_pretrained(path)
    tokenizer.save_pretrained(path)
    return path


def test_local_directory(tiny_bert):
    encoder = get_encoder(str(tiny_bert))
    assert encoder.dim == 32 and encoder.name == str(tiny_bert.resolve())
    assert get_encoder(tiny_bert) is encoder
    emb = encoder.encode(["push the red ball", "gather all balls around the green ball", "push the red ball"])
    assert emb.shape == (3, 32) and emb.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(emb, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(emb[0], emb[2])
    assert not np.allclose(emb[0], emb[1])


def test_mean_pooling_ignores_padding(tiny_bert):
    # Fresh names, so that nothing comes from the in-memory cache.
    alone = HFEncoder(tiny_bert, name="alone").encode(["push the ball"])
    padded = HFEncoder(tiny_bert, name="padded").encode(["gather all balls around the green ball .",
                                                         "push the ball"])
    np.testing.assert_allclose(padded[1], alone[0], atol=1e-5)


def test_the_model_is_read_on_the_first_text_only(tiny_bert, capfd):
    from transformers.utils import logging as hf_logging

    encoder = HFEncoder(tiny_bert, name="lazy")
    assert encoder.dim == 32 and encoder._loaded is None  # the dimension comes from config.json
    assert encoder.encode(["push the ball"]).shape == (1, 32)
    assert encoder._loaded is not None
    # without transformers' "Loading weights" bar (every command that embedded printed one),
    # and with transformers' own setting left as it was
    assert "Loading weights" not in capfd.readouterr().err and hf_logging.is_progress_bar_enabled()


def test_embeddings_kept_on_disk_serve_a_later_process_without_the_model(tiny_bert, tmp_path):
    import imaginebench_data.loader.encoders as encoders
    from imaginebench_data.loader.encoders import cached_encode

    texts = ["push the red ball", "gather all balls around the green ball", "push the red ball"]
    first = cached_encode(HFEncoder(tiny_bert, name="disk"), texts, tmp_path)
    assert len(list(tmp_path.glob("embeddings-*.ibcache"))) == 1
    encoders._EMBEDDINGS.clear()  # as in a new process
    later = HFEncoder(tiny_bert, name="disk")
    np.testing.assert_array_equal(cached_encode(later, texts, tmp_path), first)
    assert later._loaded is None  # every text came from the disk
    more = cached_encode(later, ["move the blue ball", texts[1]], tmp_path)  # a new text: encoded, added
    np.testing.assert_array_equal(more[1], first[1])
    encoders._EMBEDDINGS.clear()
    again = HFEncoder(tiny_bert, name="disk")
    np.testing.assert_array_equal(cached_encode(again, ["move the blue ball"], tmp_path), more[:1])
    assert again._loaded is None
    # Another model directory (or name) never reads these embeddings.
    assert HFEncoder(tiny_bert, name="other").fingerprint() != again.fingerprint()


def test_a_damaged_embedding_cache_is_rebuilt(tiny_bert, tmp_path):
    from imaginebench_data.loader.encoders import cached_encode

    texts = ["push the red ball"]
    first = cached_encode(HFEncoder(tiny_bert, name="damaged"), texts, tmp_path)
    entry = next(tmp_path.glob("embeddings-*.ibcache"))
    entry.write_bytes(entry.read_bytes()[:-8])
    with pytest.warns(UserWarning, match="is damaged.*rebuilding"):
        again = cached_encode(HFEncoder(tiny_bert, name="damaged"), texts, tmp_path)
    np.testing.assert_allclose(again, first)


def test_none_and_bad_specs(tmp_path):
    assert get_encoder(None) is None
    with pytest.raises(ValueError, match="no-such-model"):
        get_encoder(str(tmp_path / "no-such-model"))
    with pytest.raises(FileNotFoundError, match="config.json"):
        HFEncoder(tmp_path)
    for spec in (5, 3.5, "", "  "):  # found 2026-12-06: pathlib's TypeError, or ". is not a ... directory"
        with pytest.raises(ValueError, match=f"encoder: expected 'minilm', .* got {spec!r}$"):
            get_encoder(spec)


@pytest.mark.parametrize("texts, shown", [("abc", "got the string 'abc'; wrap it"),
                                          ([None], "got None"), (["a", 3], "got 3 \\(int\\)")])
def test_what_is_not_a_list_of_strings_is_refused(tiny_bert, texts, shown):
    """Found 2026-12-06: ``encode("abc")`` gave three rows, one per character, and ``[None]``
    the embedding of the text "None"."""
    from imaginebench_data.loader.encoders import cached_encode, encode_each

    encoder = get_encoder(str(tiny_bert))
    assert encoder.encode(["abc"]).shape == (1, encoder.dim)
    for encode in (encoder.encode, lambda t: encode_each(encoder, t),
                   lambda t: cached_encode(encoder, t, None)):
        with pytest.raises(TypeError, match=shown):
            encode(texts)


def test_a_text_alone_has_the_same_bits_whatever_was_encoded_before(tiny_bert):
    from imaginebench_data.imagine.train import SentenceTable
    from imaginebench_data.loader import encoders

    text, longer = "push the ball", "gather all balls around the green ball ."
    alone = HFEncoder(tiny_bert, name="first-alone").encode([text])[0]
    encoder = HFEncoder(tiny_bert, name="batch-first")
    encoder.encode([longer, text])  # padded to the longer text: its last bits may differ
    # whether they do depends on the kernels torch picks; make the shared cache's copy differ
    encoders._EMBEDDINGS[(encoder.name, text)] = alone + np.float32(1e-6)
    assert not np.array_equal(encoder.encode([text])[0], alone)
    np.testing.assert_array_equal(encoder.encode_alone(text), alone)
    table = SentenceTable(None)
    table.encoder = encoder  # what generation calls, after a grounding encoded the same text in a batch
    np.testing.assert_array_equal(table(text), alone)


def test_training_rows_and_a_policys_rows_embed_a_text_alone_whatever_came_before(tiny_bert, tmp_path):
    """The Sampler's embeddings (on disk or not), the adapters' and a policy's observation are
    the text encoded on its own: a batch encoded before (a grounding, another dataset's
    instructions) pads it to a longer text and changes its last bits, and those bits change
    what BC learns."""
    from imaginebench_data.baselines.policy import ConditionedPolicy
    from imaginebench_data.loader.encoders import cached_encode, encode_each

    text, longer = "push the ball", "gather all balls around the green ball ."
    alone = HFEncoder(tiny_bert, name="fresh").encode([text])[0]
    encoder = HFEncoder(tiny_bert, name="with-history")
    assert not np.array_equal(encoder.encode([longer, text])[1], alone)  # in memory: the padded bits
    np.testing.assert_array_equal(cached_encode(encoder, [longer, text], tmp_path)[1], alone)
    np.testing.assert_array_equal(cached_encode(encoder, [text], None)[0], alone)
    np.testing.assert_array_equal(encode_each(encoder, [longer, text])[1], alone)
    policy = ConditionedPolicy(lambda rows: rows, encoder, discrete=False)
    np.testing.assert_array_equal(policy.features({"state": np.zeros(2), "instruction": text})[0, 2:], alone)
