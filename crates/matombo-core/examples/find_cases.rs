//! Searches random positions for rare rule situations (several head choices in one turn,
//! a head choice repeated within a turn), to pick regression positions for the tests.
use matombo_core::{Decision, Phase, Position};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

fn main() {
    let mut rng = SmallRng::seed_from_u64(3);
    let mut found_multi = 0;
    let mut found_e2 = 0;
    for game in 0..200000u64 {
        let r = ["tsoro:6", "tsoro:8", "tsoro:8,heads=1", "tsoro:12"][(game % 4) as usize];
        let mut pos = Position::start(r.parse().unwrap());
        for _ in 0..rng.random_range(0..80) {
            let mut t = pos.begin_turn();
            if !t.apply_random(&mut rng) {
                break;
            }
            while !t.is_complete() {
                t.apply_random(&mut rng);
            }
            pos = t.into_position().unwrap();
        }
        for (tok, _) in pos.turns() {
            if tok.marks.len() >= 3 && found_multi < 3 {
                println!("multi: {pos} {tok}");
                found_multi += 1;
            }
        }
        // E2: walk continue-only paths and look for a head phase where continue is refused
        // though its sowing would end.
        let mut cands = pos.begin_turn().decisions();
        for d in cands.drain(..) {
            let mut t = pos.begin_turn();
            t.apply(d).unwrap();
            let mut steps = 0;
            while let Phase::Head(_) = t.phase() {
                let ds = t.decisions();
                if !ds.contains(&Decision::Continue) && found_e2 < 3 {
                    println!("no-continue: {pos} after {} marks {:?}", steps, t.partial_token().map(|x| x.to_string()));
                    found_e2 += 1;
                    break;
                }
                t.apply(Decision::Continue).unwrap();
                steps += 1;
                if steps > 50 {
                    break;
                }
            }
        }
        if found_multi >= 3 && found_e2 >= 3 {
            break;
        }
    }
}
