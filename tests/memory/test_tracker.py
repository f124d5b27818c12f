"""Entity memory (docs/behaviours.md item 11): canonical name, aliases, counts, positions, decay, isolation."""

from __future__ import annotations

import pytest

from dialogkit.memory.tracker import (
    display_label,
    entity_label,
    find_entity,
    recall,
    render_entities,
    salience,
    set_attributes,
    short_label,
    track_mentions,
)
from tests.memory._builders import bot_texts, in_order, mention, new_session, say


class TestTrackMentions:
    def test_zh_aliases_of_one_canonical_value_make_one_entity(self) -> None:
        """"手机" then "iPhone" are one product=phone entity with both aliases and two mentions."""
        s = new_session()
        say(s, 1, mention("product", "phone", "手机"))
        say(s, 2, mention("product", "phone", "iPhone"))
        assert len(s.entities) == 1
        phone = s.entities[0]
        assert phone.aliases == ["手机", "iPhone"]
        assert (phone.mentions, phone.first_turn, phone.last_turn, phone.mention_turns) == (2, 1, 2, [1, 2])

    def test_en_positions_count_every_mention_of_the_session(self) -> None:
        """Positions are the global mention order, so "this"/"that" can tell two same-turn mentions apart."""
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
        say(s, 2, mention("order_id", "12345", "order 12345"))
        first, second = s.entities
        assert (first.first_position, first.last_position) == (1, 3)
        assert (second.first_position, second.last_position) == (2, 2)
        assert s.mention_counter == 3

    def test_zh_two_same_type_mentions_become_the_last_list(self) -> None:
        """"我有两个订单 12345 和 67890": the list ordinals index, in order of mention."""
        s = new_session()
        touched = say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
        assert s.last_list == [e.id for e in touched]

    def test_en_people_of_different_types_form_a_list(self) -> None:
        """Persons are compatible whatever their entity type: "call Joe Brown and agent Smith"."""
        s = new_session()
        say(s, 1, mention("customer", "Joe Brown", kind="person"), mention("agent", "John Smith", kind="person"))
        assert [e.value for i in s.last_list if (e := s.entity(i)) is not None] == ["Joe Brown", "John Smith"]

    def test_zh_an_order_and_its_product_are_not_a_list(self) -> None:
        """"订单12345的手机" leaves the earlier list alone: different types are not a list."""
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
        before = list(s.last_list)
        say(s, 2, mention("order_id", "12345"), mention("product", "phone", "手机"))
        assert s.last_list == before

    def test_en_repeating_one_value_is_not_a_list(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("order_id", "12345", "#12345"))
        assert s.last_list == []
        assert s.entities[0].mentions == 2

    def test_sessions_never_share_entities(self) -> None:
        """Isolation: tracking in one session leaves another untouched (zh and en)."""
        a, b = new_session("a"), new_session("b")
        track_mentions(a, in_order(mention("order_id", "12345"), mention("person", "张经理")), turn=1)
        track_mentions(b, in_order(mention("person", "Joe Brown")), turn=1)
        assert [e.value for e in a.entities] == ["12345", "张经理"]
        assert [e.value for e in b.entities] == ["Joe Brown"]
        assert find_entity(b, "order_id", "12345") is None


class TestAttributes:
    def test_zh_action_result_becomes_an_attribute(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"))
        entity = set_attributes(s, "order_id", "12345", {"status": "已发货"}, turn=1)
        assert entity is s.entities[0] and entity.attributes == {"status": "已发货"}

    def test_en_attribute_of_an_unmentioned_entity_creates_it_without_mentions(self) -> None:
        s = new_session()
        entity = set_attributes(s, "order_id", "55555", {"status": "shipped"}, turn=3)
        assert (entity.mentions, entity.attributes, entity.attribute_turns) == (0, {"status": "shipped"}, {"status": 3})


class TestSalience:
    def test_salience_decays_with_age(self) -> None:
        s = new_session()
        (entity,) = say(s, 1, mention("order_id", "12345"))
        assert salience(entity, 1) > salience(entity, 4) > salience(entity, 10)

    def test_salience_grows_with_mentions(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
        say(s, 2, mention("order_id", "12345"))
        say(s, 2, mention("order_id", "67890"))
        say(s, 2, mention("order_id", "12345"))
        once_more, fewer = s.entities
        assert salience(once_more, 3) > salience(fewer, 3)

    def test_recall_puts_the_most_salient_first(self) -> None:
        s = new_session()
        say(s, 1, mention("person", "张经理"))
        say(s, 5, mention("order_id", "12345"))
        assert [e.value for e in recall(s, turn=6)] == ["12345", "张经理"]
        assert len(recall(s, turn=6, limit=1)) == 1


class TestRendering:
    def test_zh_render_lists_type_value_aliases_count_attributes(self) -> None:
        s = new_session()
        say(s, 1, mention("order_id", "12345"), mention("product", "phone", "手机"))
        set_attributes(s, "order_id", "12345", {"status": "已发货"}, turn=1)
        text = render_entities(s.entities, "zh")
        assert text.splitlines()[0] == "order_id：12345｜别名：12345｜提及 1 次｜最近第 1 轮｜属性：status=已发货"
        assert "product：phone｜别名：手机" in text

    def test_en_render_and_empty_memory(self) -> None:
        s = new_session()
        say(s, 2, mention("product", "phone", "iPhone"))
        assert render_entities(s.entities, "en") == "product: phone | aliases: iPhone | mentions: 1 | last turn: 2"
        assert render_entities([], "en") == "(no entities)"
        assert render_entities([], "zh") == "（暂无实体）"

    def test_labels_use_the_type_noun_for_identifiers(self) -> None:
        """"订单12345" / "order 12345"; names and products read as the user said them."""
        s = new_session()
        order, phone, person = say(s, 1, mention("order_id", "12345"), mention("product", "phone", "手机"),
                                   mention("person", "张经理"))
        assert (entity_label(order, "zh"), entity_label(order, "en")) == ("订单12345", "order 12345")
        assert (entity_label(phone, "zh"), entity_label(phone, "en")) == ("手机", "phone")
        assert entity_label(person, "zh") == "张经理"


class TestLabelsInTheTurnsLanguage:
    """A reply names an entity in the turn's language whichever language it was mentioned in."""

    @pytest.mark.parametrize(("said", "language", "shown"), [
        ("laptop", "zh", "笔记本电脑"), ("电脑", "en", "laptop"), ("电脑", "zh", "笔记本电脑"),
    ])
    def test_a_declared_value_shows_the_bots_label(self, said: str, language: str, shown: str) -> None:
        s = new_session()
        (laptop,) = say(s, 1, mention("product", "laptop", said))
        assert display_label(laptop, language, bot_texts("flows/support_ticket.yaml")) == shown

    @pytest.mark.parametrize(("language", "shown"), [("zh", "约翰"), ("en", "John Smith")])
    def test_an_alias_only_value_shows_its_alias_in_the_language(self, language: str, shown: str) -> None:
        s = new_session()
        (john,) = say(s, 1, mention("person", "John Smith", "John"))
        assert display_label(john, language, bot_texts("flows/meeting.yaml")) == shown

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_the_users_own_words_come_first_when_they_are_in_the_language(self, language: str) -> None:
        s = new_session()
        (laptop,) = say(s, 1, mention("product", "laptop", "电脑" if language == "zh" else "notebook"))
        texts = bot_texts("flows/support_ticket.yaml")
        assert short_label(laptop, language, texts) == ("电脑" if language == "zh" else "notebook")
        assert short_label(laptop, "en" if language == "zh" else "zh", texts) == (
            "laptop" if language == "zh" else "笔记本电脑")

    @pytest.mark.parametrize("language", ["zh", "en"])
    def test_without_the_bots_labels_the_value_stands(self, language: str) -> None:
        s = new_session()
        (laptop, order) = say(s, 1, mention("product", "laptop", "laptop"), mention("order_id", "12345"))
        assert display_label(order, language, bot_texts("flows/support_ticket.yaml")) == "12345"
        assert display_label(laptop, "zh") == "laptop"


class TestBoundedRecord:
    """An entity talked about all session long keeps a bounded record in the session row."""

    def test_zh_only_the_newest_mentions_are_kept_one_by_one(self) -> None:
        from dialogkit.memory.tracker import RECENT_MENTIONS

        s = new_session()
        for turn in range(1, 101):
            say(s, turn, mention("product", "phone", "手机" if turn % 2 else "iPhone"))
        (phone,) = s.entities
        assert phone.mentions == 100 and (phone.first_turn, phone.last_turn) == (1, 100)
        assert len(phone.mention_turns) == len(phone.mention_positions) == len(phone.mention_texts) == RECENT_MENTIONS
        assert phone.mention_turns == list(range(101 - RECENT_MENTIONS, 101))
        assert phone.aliases == ["手机", "iPhone"]

    def test_en_the_session_row_stops_growing(self) -> None:
        from dialogkit.store.codec import encode_session

        s = new_session()
        sizes = []
        for turn in range(1, 201):
            say(s, turn, mention("order_id", "12345", "order 12345"))
            if turn in (150, 200):          # the same number of digits in every recorded turn
                sizes.append(len(encode_session(s)))
        assert sizes[1] - sizes[0] < 16        # 50 more mentions: only the counters grew
