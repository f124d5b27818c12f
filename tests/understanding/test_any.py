"""The entity key ``any:`` and the ``any`` / ``alternatives`` cues (docs/behaviours.md, item 17).

``any:`` names the canonical value that "随便 / 都可以 / any / I don't care" fills in, said in
answer to a slot question of that type; the load checks it is one of the type's values.
"""

from __future__ import annotations

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
