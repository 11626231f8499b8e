// The learner's predictions, per chapter (ag-predict events from the
// widgets), shown as marks in the table of contents. Kept for a later SCORM
// score: record.score(ids) gives { answered, correct, total }.
import { PredictionRecord } from '../widget/predict.js';

export function trackPredictions(root, nav, chapterOf) {
  const record = new PredictionRecord();
  root.addEventListener('ag-predict', (event) => {
    const chapter = chapterOf(event.target);
    if (!chapter) return;
    record.record(chapter.id, event.detail);
    const mark = nav.querySelector(`li[data-chapter="${CSS.escape(chapter.id)}"] [data-role=progress]`);
    if (mark) mark.textContent = event.detail.correct ? ' \u2713 predicted' : ' \u2022 predicted';
  });
  return record;
}
