"""A third language refers back with its own lexicon's words: Spanish pronouns, ordinals with their
article and demonstratives before a type noun bind as their English counterparts do, and the
clarification is asked in Spanish (dialogkit/lexicon/es.yaml; no Spanish word in code)."""

from __future__ import annotations

from dialogkit.memory.clarification import clarification_question
from dialogkit.memory.references import find_references, resolve
from tests.memory._builders import mention, new_session, say


def test_es_an_ordinal_with_its_article_indexes_the_last_list() -> None:
    s = new_session()
    say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
    r = resolve(s, "consulta el estado del segundo", "es", turn=2, mentions=[])
    assert [b.entity.value for b in r.bindings] == ["67890"]


def test_es_a_demonstrative_before_a_type_noun_is_a_definite_description() -> None:
    [ref] = find_references("¿y cómo va ese pedido?", "es")
    assert (ref.category, ref.noun, ref.direction) == ("definite", "pedido", "far")


def test_es_eso_between_two_orders_is_asked_about_in_spanish() -> None:
    s = new_session()
    say(s, 1, mention("order_id", "12345"), mention("order_id", "67890"))
    r = resolve(s, "eso nunca llegó", "es", turn=2, mentions=[])
    assert r.ambiguity is not None
    assert clarification_question(r.ambiguity, "es") == "¿A cuál se refiere: pedido 12345 o 67890?"


def test_en_words_still_refer_in_an_english_turn() -> None:
    [ref] = find_references("check the status of the second one", "en")
    assert (ref.category, ref.index) == ("ordinal", 1)
