// The learner's progress, kept in this browser (localStorage): for each lesson, the tasks
// solved. Nothing is sent anywhere.
const KEY = 'matombo-learn';

/** `{ lessonId: [task index, …] }`; an unreadable store counts as empty. */
export function load() {
  try {
    const v = JSON.parse(localStorage.getItem(KEY) || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? v : {};
  } catch (_) {
    return {};
  }
}

/** The tasks of lesson `id` solved so far. */
export function solved(id) {
  const list = load()[id];
  return Array.isArray(list) ? list.filter((i) => Number.isInteger(i)) : [];
}

/** Records task `index` of lesson `id` as solved. */
export function mark(id, index) {
  const all = load();
  all[id] = [...new Set([...solved(id), index])].sort((a, b) => a - b);
  try {
    localStorage.setItem(KEY, JSON.stringify(all));
  } catch (_) {
    /* private mode or full storage: progress is simply not kept */
  }
}

/** Forgets every lesson's progress. */
export function forget() {
  try {
    localStorage.removeItem(KEY);
  } catch (_) {
    /* nothing kept */
  }
}
