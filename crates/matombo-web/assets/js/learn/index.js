// The list of lessons: marks each with the learner's progress, kept in this browser.
import * as progress from './progress.js';

const data = JSON.parse(document.getElementById('learn-data').textContent);
const say = data.words;
const fill = (t, v) => t.replace(/\{(\w+)\}/g, (m, k) => (k in v ? v[k] : m));

function render() {
  const items = [...document.querySelectorAll('#lessons .lesson-item')];
  let complete = 0;
  for (const li of items) {
    const n = Number(li.dataset.tasks);
    const k = Math.min(n, progress.solved(li.dataset.lesson).length);
    const done = k >= n;
    if (done) complete++;
    li.classList.toggle('done', done);
    li.dataset.solved = String(k);
    li.querySelector('.lesson-progress').textContent = done
      ? `✓ ${say.lesson_complete}`
      : k
        ? fill(say.tasks_done, { k, n })
        : '';
  }
  document.getElementById('progress-total').textContent = fill(say.lessons_done, { k: complete, n: items.length });
}

document.getElementById('btn-forget').addEventListener('click', () => {
  progress.forget();
  render();
});
render();
