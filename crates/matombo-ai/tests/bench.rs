//! The search's node-count signature (`matombo bench` prints it) against the number
//! committed here: a change that alters what the search does fails this test. When the
//! change is meant, run `cargo run --release -- bench --signature` (or this test) and put
//! the new total below, saying in the commit why the search changed.

use matombo_ai::bench;

/// The node total of [`bench::signature`] as of the last change to the search.
const SIGNATURE: u64 = 109_641;

#[test]
fn the_search_signature_is_the_committed_one() {
    let sig = bench::signature();
    assert_eq!(sig.nodes.len(), bench::positions().len());
    assert!(sig.nodes.iter().all(|&n| n > 0), "every position is searched: {:?}", sig.nodes);
    assert_eq!(
        sig.total(),
        SIGNATURE,
        "the search's node count changed (per position: {:?}); if the change is meant, update SIGNATURE",
        sig.nodes
    );
}

#[test]
fn the_signature_positions_are_varied_and_live() {
    let ps = bench::positions();
    let distinct: std::collections::HashSet<String> = ps.iter().map(|b| b.position.to_string()).collect();
    assert_eq!(distinct.len(), ps.len(), "no position twice");
    assert!(ps.iter().all(|b| b.position.turns().next().is_some()), "every position has a legal turn");
}
