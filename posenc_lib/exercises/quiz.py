"""The course quiz as a widget: one question at a time, an explanation for every answer."""

import ipywidgets as widgets

from ..widgets._live import Explorer


class Quiz(Explorer):
    """Show multiple-choice questions, each with a check button and a hint button.

    The questions are ChoiceExercises with labels; a check button explains the answer, right or
    wrong; a hint button shows the question's hints one tier at a time, a nudge first.

    Parameters
    ----------
    questions : iterable of ChoiceExercise
        The questions, in order; their ``labels`` are the radio buttons' texts.

    Examples
    --------
    >>> from posenc_lib.exercises import ch08
    >>> quiz = Quiz(ch08.QUESTIONS[:2])
    >>> quiz.choices[0].value = ch08.QUESTIONS[0].correct
    >>> quiz.check(0).passed, quiz.score.value
    (True, '1 of 2 right so far')
    >>> quiz.hint(1).startswith("Hint 1 of 2:")
    True
    """

    def __init__(self, questions):
        self.questions = list(questions)
        self.choices, self.feedback, self.hint_text, rows = [], [], [], []
        self.hints_shown = [0] * len(self.questions)
        for n, question in enumerate(self.questions, start=1):
            labels = question.labels or {k: str(k) for k in question.options}
            choice = widgets.RadioButtons(
                options=[(label, key) for key, label in labels.items()],
                value=None,
                layout={"width": "max-content"},
            )
            feedback = widgets.HTML()
            button = widgets.Button(description="check")
            button.on_click(lambda _, n=n - 1: self.check(n))
            hint_button = widgets.Button(description="hint")
            hint_button.on_click(lambda _, n=n - 1: self.hint(n))
            hint = widgets.HTML()
            self.choices.append(choice)
            self.feedback.append(feedback)
            self.hint_text.append(hint)
            rows.append(
                widgets.VBox(
                    [
                        widgets.HTML(f"<b>{n}. {question.prompt}</b>"),
                        choice,
                        widgets.HBox([button, feedback]),
                        widgets.HBox([hint_button, hint]),
                    ]
                )
            )
        self.score = widgets.HTML()
        self.box = widgets.VBox([*rows, self.score])

    def check(self, n):
        """Grade question n from its radio buttons and show the explanation."""
        result = self.questions[n].evaluate(self.choices[n].value)
        color = "#1a7f37" if result.passed else "#b35900"
        self.feedback[n].value = f"<span style='color:{color}'>{result}</span>"
        answered = [
            q.evaluate(c.value).passed for q, c in zip(self.questions, self.choices, strict=True)
        ]
        self.score.value = f"{sum(answered)} of {len(answered)} right so far"
        return result

    def hint(self, n):
        """Show question n's next hint (all shown so far, a nudge first) and return its text."""
        hints = self.questions[n].hints
        if self.hints_shown[n] >= len(hints):
            text = "No more hints: choose an answer and press check for its explanation."
        else:
            self.hints_shown[n] += 1
            k = self.hints_shown[n]
            text = (
                ("Hint:" if len(hints) == 1 else f"Hint {k} of {len(hints)}:") + " " + hints[k - 1]
            )
        shown = [f"Hint {k} of {len(hints)}: {hints[k - 1]}" for k in range(1, self.hints_shown[n])]
        self.hint_text[n].value = "<br>".join([*shown, text])
        return text
