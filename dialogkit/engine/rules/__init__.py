"""The rule command generator: an ordered list of named rules, each (Seen) -> commands.

The order is data, and each entry says why it stands where it does. The generator asks the
rules that read a turn in the session's state, in this order; the first rule that emits commands
decides the turn, and its commands go to the processor. A later rule never edits what an
earlier one emitted: it only runs when no earlier rule decided. A rule that needs a cue the turn
lacks, or commands the LLM did not propose, is not asked (``Rule.cues``, ``Rule.llm``): it would
make none.

Every turn is decided by some rule, except one that finds a task in EXECUTION (only a crash
mid-turn leaves one there): the processor finishes that task.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache

from dialogkit.engine.commands import Command
from dialogkit.engine.rules import cancelling, forgetting, in_task, proposed, questions, replies, starting, surroundings
from dialogkit.engine.rules.base import ANY, COLLECTING, CONFIRMING, IDLE, TASK, Bot, Rule, Seen

__all__ = ["RULES", "Bot", "Rule", "Seen", "generate"]

RULES: tuple[Rule, ...] = (
    Rule("empty_input", replies.empty_input, ANY,
         "Nothing to read: before any rule reads the text, and the question pending stays.", blank=True),
    Rule("clarification_answer", questions.clarification_answer, ANY,
         "The bot's own question is answered first: its answer is often a bare ordinal or value "
         "(\"第二个\", \"67890\") that every later rule would read as something else.", asking=True),
    Rule("forget_turn", forgetting.forget_turn, ANY,
         "Forgetting undoes the last turn whatever the state, so it comes before anything that "
         "would read the same words as values or a request.", cues=frozenset({"forget"})),
    Rule("forget_value", forgetting.forget_value, ANY,
         "\"忘记时间\" names a slot: before the slot rules, which would read the slot's label as an answer."),
    Rule("cancel", cancelling.cancel, IDLE,
         "With no task, a cancel cancels nothing; before the intent rules, which may read the "
         "cancel's words (\"取消订单\") as a request.", cues=frozenset({"cancel"})),
    Rule("give_up", cancelling.give_up, TASK,
         "Inside a task a cancel ends it unless it is an answer; before the slot rules, which "
         "would otherwise take the words as a value.", cues=frozenset({"cancel"})),
    Rule("llm_cancel", proposed.llm_cancel, IDLE | TASK,
         "A cancel the LLM heard, where the words' own cancel cue is silent: as the cancel rules "
         "read one (an answer to the question asked is no cancel), and as early, before anything "
         "takes the words as a request or a value.", llm=True),
    Rule("digression", in_task.digression, TASK,
         "Another flow's request, clearly stronger than this task's own words, suspends the task; "
         "before any value is read as an answer (unless a value's label is said alone)."),
    Rule("llm_digression", proposed.llm_digression, TASK,
         "Another flow's request the LLM heard suspends the task as the words' own would: after "
         "them (a flow the words clearly request wins), before any value is read as an answer.", llm=True),
    Rule("correction", in_task.correction, CONFIRMING,
         "New values at the confirmation change the task and ask again; before yes/no, which "
         "\"不对，是耳机\" also holds."),
    Rule("llm_values", proposed.llm_values, TASK,
         "Values the LLM heard for the task where the words give those slots none: after the words' "
         "own new values, which decide first; before asides, FAQs and values for a waiting task, "
         "which an answer is not, and before the yes and no (a correction, as the words' is).", llm=True),
    Rule("aside", in_task.aside, TASK,
         "Help or \"any other options?\" offering no value: answered, the question asked again."),
    Rule("llm_answer", proposed.llm_answer, CONFIRMING,
         "The LLM's confirm (kept only where the words open with a yes) or deny answers the "
         "confirmation: after the new values and asides the words give, which decide first; "
         "before the FAQ (a yes or a no is never a question) and the words' own yes and no, so a "
         "model's deny stands over a yes (it runs nothing), but its confirm never over a no.", llm=True),
    Rule("faq_in_task", in_task.faq, TASK,
         "An FAQ question inside a task, when the words are shaped as one (not a value given), "
         "is answered and the question asked again."),
    Rule("for_waiting_task", in_task.for_waiting_task, COLLECTING,
         "An answer with no value for the question asked but values of the task waiting below "
         "keeps them for that task; just before the slot values, which would call it a failed answer."),
    Rule("farewell_in_task", in_task.farewell, TASK,
         "\"再见\" / \"thanks, bye\" giving no value, yes or no: said goodbye to, the task kept as it is; "
         "after every rule that reads an answer or a request in the words, before the slot values, "
         "which would call it a failed answer."),
    Rule("slot_values", in_task.slot_values, COLLECTING,
         "What is left of a turn while collecting is an answer: its values (or nothing) are written."),
    Rule("confirm", in_task.confirm, CONFIRMING,
         "A yes with no no at the confirmation runs the action.", cues=frozenset({"yes"})),
    Rule("deny", in_task.deny, CONFIRMING,
         "A no (or a correction with no new value) asks what to change.", cues=frozenset({"no", "correction"})),
    Rule("clarify_reference_at_confirmation", replies.clarify_reference, CONFIRMING,
         "Neither yes nor no, with an ambiguous reference: ask which one."),
    Rule("not_answered", in_task.not_answered, CONFIRMING,
         "Last at a confirmation: nothing it can take, asked again."),
    Rule("llm_start", proposed.llm_start, IDLE,
         "A request the LLM heard, unless the words clearly request a flow (the intent rule then "
         "decides) or are an FAQ's own question: before the FAQ, whose words it may resemble, and "
         "before the weaker signs of a follow-up or of values alone.", llm=True),
    Rule("faq", replies.faq, IDLE,
         "A question the FAQ answers, unless a trigger scores as high (the FAQ is for questions, "
         "not requests): before the flows so that the tie goes to the FAQ only by score."),
    Rule("around_a_thing", surroundings.around_a_thing, IDLE,
         "\"故宫周边有什么餐馆？\" holds a restaurant's trigger word but asks about the sight: before "
         "the trigger's words decide, which would search restaurants with no wish at all."),
    Rule("intent", starting.intent, IDLE,
         "The trigger's words are the strongest sign of a request."),
    Rule("follow_up", starting.follow_up, IDLE,
         "A reference to a new referent of the last task's type repeats that task; weaker than "
         "a trigger's words."),
    Rule("flow_of_values", starting.flow_of_values, IDLE,
         "Values only one flow takes start it; weaker still: no request was made in words."),
    Rule("no_preference", starting.no_preference, IDLE,
         "\"I don't care.\" or \"the area doesn't matter\" with no question pending answers the last "
         "search: after every sign of a request (those name what is wanted), before the replies "
         "that would call it noted or not understood."),
    Rule("clarify_reference", replies.clarify_reference, IDLE,
         "An ambiguous reference with no request: ask which one before acknowledging anything."),
    Rule("greeting", replies.greeting, IDLE,
         "A greeting with nothing above: greet back.", cues=frozenset({"greeting"})),
    Rule("farewell", replies.farewell, IDLE,
         "A farewell with nothing above: said goodbye to; before the facts noted, help and not "
         "understood, which would list what the bot can do."),
    Rule("noted", replies.noted, IDLE,
         "Facts with no request are acknowledged, not refused; after the greeting, before help."),
    Rule("help", replies.help_asked, IDLE,
         "A request for help lists what the bot can do.", cues=frozenset({"help"})),
    Rule("not_understood", replies.not_understood, IDLE,
         "Last: nothing above applied."),
)


_GATES = frozenset().union(*(rule.cues for rule in RULES if rule.cues is not None))
"""The cues some rule needs (``Rule.cues``): a turn's others change no rule's say."""


@cache
def _asked(state: str, cues: frozenset[str], heard: bool, asking: bool,
           blank: bool) -> tuple[Callable[[Seen], Sequence[Command]], ...]:
    """The rules that may decide a turn in ``state`` with ``cues`` (of ``_GATES``), ``heard`` (the
    LLM proposed commands), ``asking`` (the bot's question is pending) and ``blank`` (no words), in
    their order: worked out once for each such kind of turn."""
    return tuple(rule.run for rule in RULES if state in rule.states and not rule.silent(cues, heard, asking, blank))


def generate(seen: Seen) -> list[Command]:
    """The commands of the first rule that decides this turn (none: a task found in EXECUTION)."""
    ctx = seen.ctx
    session = ctx.session
    for run in _asked(session.state, _GATES.intersection(seen.cues), bool(ctx.proposed), session.pending is not None,
                      not ctx.text.strip()):
        if made := run(seen):
            seen.emitted.extend(made)
            break
    return seen.emitted
