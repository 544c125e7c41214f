// The pages read form fields from event targets and query results (e.target.value,
// querySelector(...).hidden); the check starts non-strict, so these are typed loosely here
// rather than cast at each place. Tighten by typing those places and deleting lines here.
interface EventTarget {
  value?: any;
  checked?: any;
  files?: any;
  dataset?: any;
  closest?: any;
  select?: any;
  getAttribute?: any;
  href?: any;
}
interface Element {
  dataset: DOMStringMap;
  hidden: boolean;
  offsetTop: number;
  offsetHeight: number;
  href?: any;
  value?: any;
  checked?: any;
  submit?: any;
}
interface Window {
  webkitAudioContext?: typeof AudioContext;
}
