from dataclasses import replace

from core.lessons.lesson3_vit_vs_cnn import EXERCISES, PRESETS
from core.lessons.shipped import load_fresh_shipped


def test_each_exercise_is_answered_from_its_presets_shipped_run():
    shipped = load_fresh_shipped()
    answers = {ex.key: ex.answer(shipped.get) for ex in EXERCISES}
    # more data: not distinguishable from chance; finer patches: as good as the CNN within 3 seeds; hybrid: chance
    assert [answers[k].correct for k in ("more-data", "finer-patches", "hybrid")] == [2, 0, 2]
    assert "72 distinct" in answers["more-data"].explanation
    assert "seed 2 78%" in answers["finer-patches"].explanation and "float rounding" in answers["finer-patches"].explanation
    assert all(ex.preset in PRESETS for ex in EXERCISES)


def test_without_a_run_the_exercise_asks_for_it():
    answer = EXERCISES[0].answer(lambda cfg: None)
    assert answer.correct is None and "exercise-1" in answer.explanation


def test_the_answer_follows_the_run():
    """A run in which every ViT seed scored 100 % would make 'substantially' the answer."""
    shipped = load_fresh_shipped()

    def perfect(cfg):
        r = shipped[cfg]
        return replace(r, rows=[replace(x, test_acc=1.0) for x in r.rows])

    assert EXERCISES[0].answer(perfect).correct == 0


def test_lesson_4s_exercises_are_answered_from_the_bench_and_follow_its_numbers():
    from core.lessons.lesson4_fixing_the_vit import BENCH, REMEDY_EXERCISES

    shipped = load_fresh_shipped()
    answers = {ex.key: ex.answer(shipped.get) for ex in REMEDY_EXERCISES}
    assert all(a.correct is not None and "%" in a.explanation for a in answers.values())
    assert REMEDY_EXERCISES[0].answer(lambda cfg: None).correct is None

    def swapped(cfg):  # the learned table scoring what the lesson's ViT scored, and the other way round
        r = shipped[cfg]
        acc = {(x.model, x.seed): x.test_acc for x in r.rows}
        swap = {"vit-learned": "vit", "vit": "vit-learned"}
        return replace(r, rows=[replace(x, test_acc=acc[(swap.get(x.model, x.model), x.seed)]) for x in r.rows])

    flipped = REMEDY_EXERCISES[0].answer(swapped).correct
    assert {answers["learned-table"].correct, flipped} == {0, 2}  # better one way, worse the other
    assert BENCH in shipped


def test_what_to_notice_is_written_from_the_numbers():
    from core.lessons.lesson3_vit_vs_cnn import FITS, notes

    lesson = load_fresh_shipped()[PRESETS["lesson"]]
    said = notes(lesson)
    vit, cnn = said[0], said[1]
    assert vit.startswith("The ViT (lesson) fit its training positions") and "Its seeds disagree (51%, 51%, 26%)" in vit
    assert "Its global max pool makes position irrelevant" in cnn and "disagree" not in cnn
    assert any("300 training images hold only **70 distinct**" in n for n in said)
    assert any("falls off for ViT (lesson)" in n and "CNN" not in n for n in said)
    # the same run, had the ViT not fit its training set: the notes say so, and no longer read its test accuracy
    unfit = replace(lesson, rows=[replace(r, train_acc=FITS - 0.1) if r.model == "vit" else r for r in lesson.rows])
    assert "**did not fit its training positions**" in notes(unfit)[0] and "more epochs first" in notes(unfit)[0]
