// The new-game form: POST /api/online/rooms, keep the secrets in this browser, go to the game.
const form = document.getElementById('create');
const error = document.getElementById('error');
form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  error.textContent = '';
  const f = new FormData(form);
  const body = { ruleset: f.get('ruleset').trim(), side: f.get('side'), name: f.get('name').trim() };
  const minutes = Number(f.get('minutes') || 0);
  if (minutes > 0) body.clock = { initial_ms: Math.round(minutes * 60000), increment_ms: Math.round(Number(f.get('increment') || 0) * 1000) };
  try {
    const r = await fetch('/api/online/rooms', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const v = await r.json();
    if (!r.ok) { error.textContent = v.message || 'could not create the game'; return; }
    localStorage.setItem(`matombo-online-${v.id}`, JSON.stringify({ token: v.token, invite: v.invite, name: body.name }));
    location.href = v.links.seat;
  } catch (e) {
    error.textContent = `could not reach the server: ${e}`;
  }
});
