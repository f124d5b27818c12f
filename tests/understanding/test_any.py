"""The entity key ``any:`` and the ``any`` / ``alternatives`` cues (docs/behaviours.md, item 17).

``any:`` names the canonical value that "随便 / 都可以 / any / I don't care" fills in, said in
answer to a slot question of that type; the load checks it is one of the type's values.
"""

from __future__ import annotations

import pytest

from dialogkit.understanding.cues import detect_cues
from dialogkit.understanding.language import fold
from tests.spec.helpers import load, only, problems

DOCTORS = """\
    entities:
      doctor:
        any: {any}
        values:
          wang: [王医生, Dr. Wang]
          any_doctor: [任意医生, any doctor]
    flows:
      book:
        trigger: {{keywords: [挂号, book]}}
        slots: [{{name: doctor, entity: doctor}}]
    """


class TestTheAnyKey:
    def test_a_value_of_the_type_loads(self) -> None:
        loaded = load(DOCTORS.format(any="any_doctor"))
        assert loaded.spec.entities["doctor"].any == "any_doctor"

    def test_it_is_optional(self) -> None:
        loaded = load(DOCTORS.replace("        any: {any}\n", "").format())
        assert loaded.spec.entities["doctor"].any is None

    def test_a_misspelt_value_is_a_problem_with_a_guess(self) -> None:
        problem = only(problems(DOCTORS.format(any="any_doctr")))
        assert (problem.line, problem.col) == (3, 10)
        assert "'any_doctr'" in problem.message and "'doctor'" in problem.message
        assert "any_doctor" in problem.hint

    def test_a_pattern_type_has_no_value_to_name(self) -> None:
        problem = only(problems("""\
            entities:
              code: {pattern: '\\d{5}', any: whatever}
            flows:
              f:
                trigger: {keywords: [代码, code]}
                slots: [{name: code, entity: code}]
            """))
        assert "'whatever'" in problem.message
        assert "values:" in problem.hint


class TestTheAnyCue:
    @pytest.mark.parametrize(
        "text",
        ["随便", "都可以", "都行", "无所谓", "哪个都行", "哪个医生都行", "哪位医生都可以", "什么时间都行", "几点都行",
         "任何医生", "随便哪个医生", "医生随便", "舱位不限", "你定吧", "随便吧", "嗯，都可以啊"],
    )
    def test_chinese(self, text: str) -> None:
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["any", "Any.", "any doctor", "any available doctor", "anything", "anyone", "whichever", "either one",
         "I don't care", "i dont care which doctor", "I really don't mind", "doesn't matter", "It doesn't matter",
         "no preference", "up to you", "any is fine", "any will do", "whatever works", "you choose"],
    )
    def test_english(self, text: str) -> None:
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["anyway", "many", "company", "anyway, book it", "how many are left", "my company is Acme",
         "do you have any appointments?", "any other options?", "anything else?", "any news?", "it does matter",
         "任何问题都可以问吗？", "随便问一下，王医生几点上班？", "随便聊聊吧", "随便看看", "可以", "我要挂心内科", "I care a lot", "是的"],
    )
    def test_ordinary_words_and_questions_are_no_any(self, text: str) -> None:
        """The word inside a request or a question is no answer: "anyway", "many", "company"."""
        assert "any" not in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["I don't care about it", "i do not care about that", "It doesn't matter to me", "that doesn't really matter",
         "I have no preference", "I don't have a preference on that", "no, I don't mind"],
    )
    def test_about_the_thing_asked(self, text: str) -> None:
        """"it" / "that" is what the question asked about."""
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["随便，你推荐一家", "都行吧，离地铁近点就好", "无所谓。你看着办", "I don't care. Please pick one for me",
         "doesn't matter, but somewhere quiet", "No preference as long as it opens early"],
    )
    def test_as_the_first_clause_of_a_longer_answer(self, text: str) -> None:
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["I do care about it", "it matters to me", "I have a preference", "不，我要靠窗的", "随便问问，你们几点关门？",
         "any chance you open early? thanks"],
    )
    def test_other_first_clauses_are_no_any(self, text: str) -> None:
        assert "any" not in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["dont care but I would like the address", "doesn't matter however make it quiet", "无所谓不过要安静一点",
         "随便但是别太贵"],
    )
    def test_a_contrast_word_ends_the_first_clause(self, text: str) -> None:
        """"but" / "不过" set apart what follows, as a comma does."""
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["Don't care.", "no specific one", "No particular, thanks", "I don't care which district the flat is in",
         "没有特别的要求", "没什么偏好"],
    )
    def test_more_forms(self, text: str) -> None:
        assert "any" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize("text", ["no specific reason, I just called", "没有特别的事"])
    def test_more_forms_that_are_not(self, text: str) -> None:
        assert "any" not in detect_cues(fold(text).lower())

    @pytest.mark.parametrize("text", ["no preference", "不限", "doesn't matter"])
    def test_an_any_answer_is_no_yes_or_no(self, text: str) -> None:
        assert detect_cues(fold(text).lower()) == {"any"}


class TestTheAlternativesCue:
    @pytest.mark.parametrize(
        "text",
        ["还有别的吗", "有没有别的", "还有其他的吗", "其他的呢", "换一个", "能换一个吗？", "有没有其他选项", "还有没有别的医生",
         "anything else?", "any other options?", "what else do you have", "show me more", "are there others?",
         "other options?", "any other times?", "Something else, please"],
    )
    def test_asking_for_other_choices(self, text: str) -> None:
        assert "alternatives" in detect_cues(fold(text).lower())

    @pytest.mark.parametrize(
        "text",
        ["没有别的了", "不用换一个", "我想换一个键盘", "帮我换一下时间", "nothing else", "no, nothing else, thanks",
         "I don't need anything else", "what else can you do", "随便", "any", "anyway"],
    )
    def test_ending_a_list_or_asking_for_help_is_not(self, text: str) -> None:
        """"我想换一个键盘" is an exchange, "what else can you do" a request for help."""
        assert "alternatives" not in detect_cues(fold(text).lower())
