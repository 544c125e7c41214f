// Glicko-2 (Glickman, "Example of the Glicko-2 system"): one rating period per game, a
// puzzle being the opponent. Ratings on the familiar scale (1500 ± 350), volatility 0.06.
const SCALE = 173.7178;
const TAU = 0.5;

/** A new rating. */
export function fresh(rating = 1500) {
  return { r: rating, rd: 350, vol: 0.06 };
}

const g = (phi) => 1 / Math.sqrt(1 + (3 * phi * phi) / (Math.PI * Math.PI));

/** `a` after a game against `b` with `score` (1 win, 0 loss, 0.5 draw). */
export function update(a, b, score) {
  const mu = (a.r - 1500) / SCALE;
  const phi = a.rd / SCALE;
  const muJ = (b.r - 1500) / SCALE;
  const phiJ = b.rd / SCALE;
  const gJ = g(phiJ);
  const e = 1 / (1 + Math.exp(-gJ * (mu - muJ)));
  const v = 1 / (gJ * gJ * e * (1 - e));
  const delta = v * gJ * (score - e);
  // The new volatility: the root of f by the Illinois method (the paper's step 5).
  const a0 = Math.log(a.vol * a.vol);
  const f = (x) => {
    const ex = Math.exp(x);
    const d = phi * phi + v + ex;
    return (ex * (delta * delta - phi * phi - v - ex)) / (2 * d * d) - (x - a0) / (TAU * TAU);
  };
  let A = a0;
  let B;
  if (delta * delta > phi * phi + v) B = Math.log(delta * delta - phi * phi - v);
  else {
    let k = 1;
    while (f(a0 - k * TAU) < 0) k++;
    B = a0 - k * TAU;
  }
  let fA = f(A);
  let fB = f(B);
  for (let i = 0; i < 100 && Math.abs(B - A) > 1e-6; i++) {
    const C = A + ((A - B) * fA) / (fB - fA);
    const fC = f(C);
    if (fC * fB <= 0) {
      A = B;
      fA = fB;
    } else fA /= 2;
    B = C;
    fB = fC;
  }
  const vol = Math.exp(A / 2);
  const phiStar = Math.sqrt(phi * phi + vol * vol);
  const phiNew = 1 / Math.sqrt(1 / (phiStar * phiStar) + 1 / v);
  const muNew = mu + phiNew * phiNew * gJ * (score - e);
  return { r: muNew * SCALE + 1500, rd: Math.max(30, phiNew * SCALE), vol };
}
