"""Reference resolution (docs/behaviours.md items 8-10): pronouns, demonstratives, ordinals, definites, ellipsis."""

from __future__ import annotations

import pytest

from dialogkit.memory.references import Resolution, find_references, resolve
from dialogkit.memory.tracker import set_attributes
from dialogkit.model.session import Entity, Session
from tests.memory._builders import mention, new_session, say


def bound(resolution: Resolution) -> list[str]:
    return [str(b.entity.value) for b in resolution.bindings]


def two_orders() -> Session:
    """"我有两个订单 12345 和 67890" / "I have two orders, 12345 and 67890"."""
    s = new_session()
    say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
    return s


def orders_in_two_turns() -> Session:
    s = new_session()
    say(s, 1, mention("order_id", "12345"))
    say(s, 2, mention("order_id", "67890"))
    return s


class TestPronouns:
    def test_zh_it_binds_the_order_and_reads_resolved(self) -> None:
        """"查看订单 12345 的状态" then "它现在怎么样？" binds 它 to order 12345."""
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        r = resolve(s, "它现在怎么样？", "zh", turn=2, mentions=[])
        assert bound(r) == ["12345"] and r.ambiguity is None
        assert r.resolved_text == "订单12345现在怎么样？"

    def test_en_it_binds_the_order(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        r = resolve(s, "Has it shipped yet?", "en", turn=2, mentions=[])
        assert bound(r) == ["12345"]
        assert r.resolved_text == "Has order 12345 shipped yet?"

    def test_en_sentence_initial_label_is_capitalised(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        assert resolve(s, "it never arrived", "en", turn=2, mentions=[]).resolved_text == "Order 12345 never arrived"

    def test_zh_he_binds_a_person_never_a_thing(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "张经理"))
        say(s, 2, mention("order_id", "12345"))
        r = resolve(s, "问他项目进度", "zh", turn=3, mentions=[])
        assert bound(r) == ["张经理"] and r.resolved_text == "问张经理项目进度"

    def test_en_him_binds_a_person_never_a_thing(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "Joe Brown"))
        say(s, 2, mention("order_id", "12345"))
        r = resolve(s, "ask him about the project", "en", turn=3, mentions=[])
        assert bound(r) == ["Joe Brown"] and r.resolved_text == "ask Joe Brown about the project"

    def test_zh_it_prefers_a_thing_over_an_untyped_value(self) -> None:
        """"我的手机坏了" then "它能修吗": the phone, not the issue type."""
        s = new_session()
        say(s, 1, mention("product", "phone", "手机"), mention("issue_type", "damaged", "坏了"))
        assert bound(resolve(s, "它能修吗", "zh", turn=2, mentions=[])) == ["phone"]

    def test_en_expected_slot_type_breaks_a_tie(self) -> None:
        """While the order number is asked, "it" means the order, not the product of the same turn."""
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("product", "phone"))
        r = resolve(s, "it is that one", "en", turn=2, mentions=[], expected_types={"order_id"})
        assert bound(r)[0] == "12345"

    def test_zh_entities_of_the_utterance_itself_are_not_candidates(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        current = [mention("order_id", "67890", start=0)]
        assert bound(resolve(s, "67890和它一样", "zh", turn=2, mentions=current)) == ["12345"]

    def test_en_entities_of_the_utterance_itself_are_not_candidates(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        current = [mention("order_id", "67890", start=6)]
        assert bound(resolve(s, "order 67890 is like it", "en", turn=2, mentions=current)) == ["12345"]

    def test_zh_they_take_the_last_list(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "张经理"), mention("person", "李主管"))
        r = resolve(s, "通知他们开会", "zh", turn=2, mentions=[])
        assert bound(r) == ["张经理", "李主管"] and r.resolved_text == "通知张经理和李主管开会"

    def test_en_them_take_the_utterances_own_list(self) -> None:
        s = new_session()
        current = [mention("person", "Joe Brown", start=5), mention("person", "John Smith", start=19)]
        r = resolve(s, "call Joe Brown and John Smith and tell them", "en", turn=1, mentions=current)
        assert bound(r) == ["Joe Brown", "John Smith"]
        assert r.resolved_text.endswith("tell Joe Brown and John Smith")

    def test_zh_no_candidate_leaves_the_text_alone(self) -> None:
        r = resolve(new_session(), "它坏了", "zh", turn=1, mentions=[])
        assert (r.bindings, r.ambiguity, r.resolved_text) == ([], None, "它坏了")

    def test_en_no_candidate_leaves_the_text_alone(self) -> None:
        r = resolve(new_session(), "it broke", "en", turn=1, mentions=[])
        assert (r.bindings, r.ambiguity, r.resolved_text) == ([], None, "it broke")


class TestDemonstratives:
    @pytest.mark.parametrize(("text", "language", "expected"), [
        ("这个还没到", "zh", "67890"), ("那个还没到", "zh", "12345"),
        ("this one hasn't arrived", "en", "67890"), ("that one hasn't arrived", "en", "12345"),
    ])
    def test_this_picks_the_more_recent_that_the_earlier(self, text: str, language: str, expected: str) -> None:
        """Between two compatible candidates 这/this -> more recent, 那/that -> earlier."""
        assert bound(resolve(two_orders(), text, language, turn=2, mentions=[])) == [expected]

    @pytest.mark.parametrize(("text", "language"), [("那个呢", "zh"), ("what about that one", "en")])
    def test_a_single_candidate_is_taken_by_either_word(self, text: str, language: str) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        assert bound(resolve(s, text, language, turn=2, mentions=[])) == ["12345"]

    def test_en_that_as_a_conjunction_is_not_a_reference(self) -> None:
        """"I think that it broke": only "it" refers."""
        refs = find_references("I think that it broke", "en")
        assert [(r.expression, r.category) for r in refs] == [("it", "pronoun")]

    def test_en_assent_is_not_a_reference(self) -> None:
        assert find_references("that's right", "en") == []
        assert find_references("so that is fine", "en") == []

    def test_zh_other_words_containing_zhe_na_ta_are_not_references(self) -> None:
        """其他, 那就, 这样, 第二天 are ordinary words."""
        for text in ("其他的呢", "那就取消吧", "这样可以", "第二天再说", "他人的订单"):
            assert find_references(text, "zh") == [], text


class TestOrdinals:
    @pytest.mark.parametrize(("text", "language", "expected"), [
        ("第一个", "zh", "12345"), ("第二个还没到", "zh", "67890"), ("前者", "zh", "12345"),
        ("后者", "zh", "67890"), ("最后一个", "zh", "67890"),
        ("the first one", "en", "12345"), ("the second", "en", "67890"), ("the former", "en", "12345"),
        ("the latter", "en", "67890"), ("the last one", "en", "67890"),
    ])
    def test_ordinals_index_the_last_list(self, text: str, language: str, expected: str) -> None:
        assert bound(resolve(two_orders(), text, language, turn=2, mentions=[])) == [expected]

    def test_zh_ordinal_past_the_end_binds_nothing(self) -> None:
        r = resolve(two_orders(), "第三个", "zh", turn=2, mentions=[])
        assert (r.bindings, r.ambiguity) == ([], None)

    def test_en_ordinal_time_expressions_are_not_ordinals(self) -> None:
        assert find_references("the first time I ordered", "en") == []


class TestDefiniteDescriptions:
    @pytest.mark.parametrize(("text", "language", "resolved"), [
        ("同一个订单又坏了", "zh", "订单67890又坏了"), ("该订单还没到", "zh", "订单67890还没到"),
        ("the same order broke again", "en", "Order 67890 broke again"),
        ("the order hasn't arrived", "en", "Order 67890 hasn't arrived"),
    ])
    def test_type_noun_restricts_to_the_type(self, text: str, language: str, resolved: str) -> None:
        """The product of the latest turn is not a candidate for "the same order"."""
        s = orders_in_two_turns()
        say(s, 3, mention("product", "phone", "手机" if language == "zh" else "phone"))
        assert resolve(s, text, language, turn=4, mentions=[]).resolved_text == resolved

    @pytest.mark.parametrize(("text", "language", "expected"), [
        ("这个订单", "zh", "67890"), ("那个订单", "zh", "12345"),
        ("this order", "en", "67890"), ("that order", "en", "12345"),
    ])
    def test_demonstrative_with_a_type_noun(self, text: str, language: str, expected: str) -> None:
        assert bound(resolve(two_orders(), text, language, turn=2, mentions=[])) == [expected]

    def test_zh_that_person(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "张经理"))
        say(s, 2, mention("order_id", "12345"))
        assert bound(resolve(s, "那个人怎么说", "zh", turn=3, mentions=[])) == ["张经理"]

    def test_en_naming_the_value_outright_is_not_a_reference(self) -> None:
        s = orders_in_two_turns()
        current = [mention("order_id", "12345", start=10)]
        r = resolve(s, "check the order 12345", "en", turn=3, mentions=current)
        assert r.bindings == [] and r.resolved_text == "check the order 12345"


class TestEllipsis:
    def test_zh_missing_object_is_completed_from_the_task(self) -> None:
        """"创建会议" then "改到下午三点" resolves to "将会议改到下午三点"."""
        r = resolve(new_session(), "改到下午三点", "zh", turn=2, mentions=[mention("time", "15:00", "下午三点", start=2)],
                    task_object_label="会议")
        assert r.resolved_text == "将会议改到下午三点"

    def test_zh_courtesy_word_stays_in_front(self) -> None:
        r = resolve(new_session(), "请推迟到明天", "zh", turn=2, mentions=[], task_object_label="会议")
        assert r.resolved_text == "请将会议推迟到明天"

    @pytest.mark.parametrize(("text", "resolved"), [
        ("change to 3pm", "change the meeting to 3pm"), ("move it to 3pm", "move the meeting to 3pm"),
        ("please reschedule for Friday", "please reschedule the meeting for Friday"),
    ])
    def test_en_missing_object_is_completed_from_the_task(self, text: str, resolved: str) -> None:
        assert resolve(new_session(), text, "en", turn=2, mentions=[], task_object_label="meeting").resolved_text == resolved

    def test_task_object_entity_is_bound(self) -> None:
        s = new_session()
        (meeting,) = say(s, 1, mention("meeting", "weekly sync", "weekly sync"))
        r = resolve(s, "move it to 3pm", "en", turn=2, mentions=[], task_object=meeting)
        assert bound(r) == ["weekly sync"] and r.resolved_text == "move weekly sync to 3pm"

    def test_zh_an_utterance_with_its_object_is_not_elliptical(self) -> None:
        r = resolve(new_session(), "会议改到下午三点", "zh", turn=2, mentions=[], task_object_label="会议")
        assert r.resolved_text == "会议改到下午三点"

    def test_en_without_an_active_task_nothing_is_added(self) -> None:
        assert resolve(new_session(), "change to 3pm", "en", turn=2, mentions=[]).resolved_text == "change to 3pm"


class TestAmbiguity:
    def test_zh_same_turn_orders_are_ambiguous(self) -> None:
        """"我有两个订单 12345 和 67890" then "它还没到": ask, candidates in order of first mention."""
        r = resolve(two_orders(), "它还没到", "zh", turn=2, mentions=[])
        assert r.ambiguity is not None and r.bindings == []
        assert [e.value for e in r.ambiguity.candidates] == ["12345", "67890"]
        assert r.ambiguity.reference.expression == "它" and r.resolved_text == "它还没到"

    def test_zh_same_turn_people_are_ambiguous(self) -> None:
        """"联系张经理和李主管" then "问他项目进度"."""
        s = new_session()
        say(s, 1, mention("person", "张经理"), mention("person", "李主管"))
        r = resolve(s, "问他项目进度", "zh", turn=2, mentions=[])
        assert r.ambiguity is not None
        assert [e.value for e in r.ambiguity.candidates] == ["张经理", "李主管"]

    def test_en_same_turn_orders_are_ambiguous(self) -> None:
        r = resolve(two_orders(), "it never arrived", "en", turn=2, mentions=[])
        assert r.ambiguity is not None
        assert [e.value for e in r.ambiguity.candidates] == ["12345", "67890"]

    def test_en_same_turn_people_are_ambiguous(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "Joe Brown"), mention("person", "John Smith"))
        r = resolve(s, "ask him about it", "en", turn=2, mentions=[])
        assert r.ambiguity is not None
        assert [e.value for e in r.ambiguity.candidates] == ["Joe Brown", "John Smith"]

    @pytest.mark.parametrize(("text", "language"), [("它还没到", "zh"), ("it never arrived", "en")])
    def test_a_later_turn_is_clearly_best(self, text: str, language: str) -> None:
        """Near-ambiguity: one candidate mentioned in a later turn is bound without asking."""
        r = resolve(orders_in_two_turns(), text, language, turn=3, mentions=[])
        assert r.ambiguity is None and bound(r) == ["67890"]

    def test_an_entity_known_only_from_an_action_is_no_candidate(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        set_attributes(s, "order_id", "99999", {"status": "shipped"}, turn=2)
        assert bound(resolve(s, "it never arrived", "en", turn=3, mentions=[])) == ["12345"]

    def test_other_references_are_still_bound_beside_an_ambiguity(self) -> None:
        s = two_orders()
        say(s, 2, mention("person", "张经理"))
        r = resolve(s, "让他查一下它", "zh", turn=3, mentions=[])
        assert bound(r) == ["张经理"] and r.ambiguity is not None and r.resolved_text == "让张经理查一下它"


def test_sessions_are_isolated() -> None:
    """A pronoun in one session never binds another session's entity."""
    a, b = new_session("a"), new_session("b")
    say(a, 1, mention("order_id", "12345"))
    assert resolve(b, "它还没到", "zh", turn=2, mentions=[]).bindings == []
    assert resolve(b, "it never arrived", "en", turn=2, mentions=[]).bindings == []
    assert isinstance(a.entities[0], Entity) and b.entities == []


class TestPossessives:
    def test_en_its_and_his_are_written_back_as_possessives(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("person", "Joe Brown"))
        assert resolve(s, "check its status", "en", turn=2, mentions=[]).resolved_text == "check order 12345's status"
        assert resolve(s, "what is his email", "en", turn=2, mentions=[]).resolved_text == "what is Joe Brown's email"

    def test_zh_possessive_de_needs_no_rewrite(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        assert resolve(s, "查一下它的物流", "zh", turn=2, mentions=[]).resolved_text == "查一下订单12345的物流"
