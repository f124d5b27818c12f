"""``LookAhead`` on its own: a turn's references found before the policy decides, and the replay
of a request once the user has said which referent they meant."""

from __future__ import annotations

import pytest

from dialogkit.engine.turn import TurnContext
from dialogkit.memory import clarification
from dialogkit.model.session import PendingClarification, Session
from dialogkit.understanding.intents import INTENT_THRESHOLD
from tests.engine._parts import MEETING, Parts, build, new_session

LANGS = pytest.mark.parametrize("lang", ["zh", "en"])
ONE_ORDER = {"zh": "查看订单 12345 的状态", "en": "check the status of order 12345"}
HOW_IS_IT = {"zh": "它现在怎么样？", "en": "how is it now?"}
TWO_ORDERS = {"zh": "我有两个订单 12345 和 67890", "en": "I have two orders, 12345 and 67890"}
NEVER_ARRIVED = {"zh": "它还没到", "en": "it never arrived"}
THE_SECOND = {"zh": "第二个", "en": "the second"}


def _never(*_args: object, **_kwargs: object) -> None:
    raise AssertionError("the turn was read again")


@pytest.fixture
def parts() -> Parts:
    return build()


def look_ahead(parts: Parts, session: Session, text: str) -> TurnContext:
    """Run the look-ahead alone on the session's next turn."""
    with parts.turn(session, text) as ctx:
        parts.lookahead.run(ctx)
    return ctx


def asked_which(parts: Parts, session: Session, lang: str) -> PendingClarification:
    """Two orders, then "它还没到": the question the bot would ask."""
    parts.mentioned(session, TWO_ORDERS[lang])
    ctx = look_ahead(parts, session, NEVER_ARRIVED[lang])
    assert ctx.resolution is not None and ctx.resolution.ambiguity is not None
    return clarification.make_pending(ctx.resolution.ambiguity, original_text=ctx.text, language=lang,
                                      turn=ctx.turn, kind="reference")


class TestRun:
    @LANGS
    def test_a_pronoun_after_one_order_binds_it(self, parts: Parts, lang: str) -> None:
        """"它" / "it" after order 12345 is that order: bound, written into the text, offered as a mention."""
        session = new_session(lang)
        parts.mentioned(session, ONE_ORDER[lang])
        ctx = look_ahead(parts, session, HOW_IS_IT[lang])
        assert ctx.resolution is not None and ctx.resolution.ambiguity is None
        assert [b.entity.value for b in ctx.resolution.bindings] == ["12345"]
        assert ctx.resolved_text is not None and "12345" in ctx.resolved_text
        assert [(m.type, m.value) for m in ctx.bound_mentions] == [("order_id", "12345")]

    @LANGS
    def test_the_turn_is_scored_again_with_the_order_in_place(self, parts: Parts, lang: str) -> None:
        """Only with the order put in does "how is it now?" read as a sure status question."""
        session = new_session(lang)
        before = parts.understanding.interpret(HOW_IS_IT[lang], lang).top_intent
        parts.mentioned(session, ONE_ORDER[lang])
        after = look_ahead(parts, session, HOW_IS_IT[lang]).interp.top_intent
        assert after is not None and after.flow == "check_status" and after.score >= INTENT_THRESHOLD
        assert before is None or before.score < after.score

    @LANGS
    def test_two_candidates_give_an_ambiguity(self, parts: Parts, lang: str) -> None:
        """Two orders named together: "它" could be either, so nothing is bound and both are candidates."""
        session = new_session(lang)
        parts.mentioned(session, TWO_ORDERS[lang])
        ctx = look_ahead(parts, session, NEVER_ARRIVED[lang])
        assert ctx.resolution is not None and ctx.resolution.bindings == []
        assert ctx.resolution.ambiguity is not None
        assert [e.value for e in ctx.resolution.ambiguity.candidates] == ["12345", "67890"]
        assert ctx.bound_mentions == [] and ctx.resolved_text is None

    @LANGS
    def test_an_ambiguous_turn_still_reads_as_its_request(self, parts: Parts, lang: str) -> None:
        """"它还没到" is a missing-order report whichever order is meant; the policy can start it."""
        session = new_session(lang)
        parts.mentioned(session, TWO_ORDERS[lang])
        top = look_ahead(parts, session, NEVER_ARRIVED[lang]).interp.top_intent
        assert top is not None and top.flow == "report_issue"

    @LANGS
    @pytest.mark.parametrize("earlier", [ONE_ORDER, TWO_ORDERS])
    def test_the_turn_is_not_read_again(self, parts: Parts, lang: str, earlier: dict[str, str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
        """Bound or ambiguous, the referent stands in the reading the turn has: understanding
        neither reads the resolved words nor looks for a value in them."""
        session = new_session(lang)
        parts.mentioned(session, earlier[lang])
        text = HOW_IS_IT[lang] if earlier is ONE_ORDER else NEVER_ARRIVED[lang]
        with parts.turn(session, text) as ctx:
            monkeypatch.setattr(parts.understanding, "interpret", _never)
            monkeypatch.setattr(parts.understanding, "extract", _never)
            parts.lookahead.run(ctx)
        top = ctx.interp.top_intent
        assert top is not None and top.flow == ("check_status" if earlier is ONE_ORDER else "report_issue")

    @LANGS
    def test_the_asked_slots_type_narrows_the_candidates(self, parts: Parts, lang: str) -> None:
        """Asked for an order number, "就是它" / "that one" means the order, not the phone named with it."""
        mentioned = {"zh": "订单 12345 的手机", "en": "the phone of order 12345"}[lang]
        that_one = {"zh": "就是它", "en": "that one"}[lang]
        idle = new_session(lang)
        parts.mentioned(idle, mentioned)
        unasked = look_ahead(parts, idle, that_one).resolution
        asking = new_session(lang)
        parts.mentioned(asking, mentioned)
        parts.task(asking, "check_status", "PARAM_COLLECT", pending_slot="order_id")
        asked = look_ahead(parts, asking, that_one).resolution
        assert asked is not None and [b.entity.value for b in asked.bindings] == ["12345"]
        assert unasked is not None and [b.entity.value for b in unasked.bindings] != ["12345"]

    @LANGS
    def test_with_nothing_remembered_nothing_is_resolved(self, parts: Parts, lang: str) -> None:
        """No entities and no task object: the look-ahead leaves the turn as it is."""
        ctx = look_ahead(parts, new_session(lang), HOW_IS_IT[lang])
        assert ctx.resolution is None and ctx.resolved_text is None

    @LANGS
    def test_an_utterance_without_its_object_gets_the_tasks(self, lang: str) -> None:
        """Inside a meeting task, "改到下午三点" / "move it to 3pm" is about the meeting."""
        parts = build(MEETING, actions={})
        session = new_session(lang)
        parts.task(session, "schedule_meeting", "PARAM_COLLECT", {"date": "2026-12-01", "time": "10:00"})
        ctx = look_ahead(parts, session, {"zh": "改到下午三点", "en": "move it to 3pm"}[lang])
        assert ctx.resolved_text == {"zh": "将会议改到下午三点", "en": "move the meeting to 3pm"}[lang]


class TestReplayWithChoice:
    @LANGS
    def test_the_chosen_candidate_is_bound_in_the_original_request(self, parts: Parts, lang: str) -> None:
        """"第二个" after "它还没到": the turn becomes "order 67890 never arrived", bound to 67890."""
        session = new_session(lang)
        pending = asked_which(parts, session, lang)
        with parts.turn(session, THE_SECOND[lang]) as ctx:
            parts.lookahead.replay_with_choice(ctx, pending, pending.candidates[1])
        assert ctx.text == NEVER_ARRIVED[lang]
        assert ctx.resolution is not None and ctx.resolution.ambiguity is None
        assert [b.entity.value for b in ctx.resolution.bindings] == ["67890"]
        assert ctx.resolved_text is not None and "67890" in ctx.resolved_text and "12345" not in ctx.resolved_text
        assert [(m.type, m.value) for m in ctx.bound_mentions] == [("order_id", "67890")]

    @LANGS
    def test_the_replayed_request_is_read_again(self, parts: Parts, lang: str) -> None:
        """The answer "第二个" has no intent of its own; the replay reads the original request's."""
        session = new_session(lang)
        pending = asked_which(parts, session, lang)
        with parts.turn(session, THE_SECOND[lang]) as ctx:
            assert ctx.interp.top_intent is None or ctx.interp.top_intent.flow != "report_issue"
            parts.lookahead.replay_with_choice(ctx, pending, pending.candidates[0])
        top = ctx.interp.top_intent
        assert top is not None and top.flow == "report_issue"
        assert [m.value for m in ctx.bound_mentions] == ["12345"]
