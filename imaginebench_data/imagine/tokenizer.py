"""A word-level tokenizer for the scratch backbone, built from the texts it will see.

Nothing can be downloaded here, so the default backbone gets its own vocabulary: every
lower-cased word and punctuation mark of the prompt templates and the training
instructions. Words of unseen phrasings map to ``[UNK]``; the instruction's sentence
embedding (see ``config.sentence_encoder``) is what carries their meaning.
"""

from __future__ import annotations

from collections.abc import Iterable

from tokenizers import Tokenizer, normalizers, pre_tokenizers
from tokenizers.models import WordLevel
from transformers import PreTrainedTokenizerFast

SPECIALS = {"pad_token": "[PAD]", "unk_token": "[UNK]", "bos_token": "[BOS]", "eos_token": "[EOS]"}
SLOT = "[SLOT]"  # the placeholder whose embedding an adapter overwrites


def _pre_tokenizer() -> pre_tokenizers.PreTokenizer:
    return pre_tokenizers.Sequence([pre_tokenizers.Whitespace(), pre_tokenizers.Punctuation()])


def build_word_tokenizer(texts: Iterable[str]) -> PreTrainedTokenizerFast:
    """A ``PreTrainedTokenizerFast`` whose vocabulary is the words of ``texts`` plus specials."""
    normalizer = normalizers.Lowercase()
    pre = _pre_tokenizer()
    words: dict[str, None] = {}
    for text in texts:
        for word, _ in pre.pre_tokenize_str(normalizer.normalize_str(text)):
            words.setdefault(word)
    vocab = {token: i for i, token in enumerate([*SPECIALS.values(), SLOT, *sorted(words)])}
    core = Tokenizer(WordLevel(vocab, unk_token=SPECIALS["unk_token"]))
    core.normalizer = normalizer
    core.pre_tokenizer = pre
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, **SPECIALS,
                                        additional_special_tokens=[SLOT])
    return tokenizer
