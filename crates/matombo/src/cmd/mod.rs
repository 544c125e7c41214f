//! One module per subcommand: its arguments (with help and an example) and `run`; and the
//! helpers several of them share (position arguments, progress bars, a worker pool).

pub mod analyse;
pub mod apply;
pub mod bench;
pub mod engine;
pub mod loadtest;
pub mod matches;
pub mod perft;
pub mod play;
pub mod serve;
pub mod show;
pub mod site;
pub mod tune;
pub mod turns;

use std::io::IsTerminal;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use matombo_core::Position;

/// Parses a position argument: a position string or a ruleset name (its start position).
pub fn parse_position(s: &str) -> anyhow::Result<Position> {
    s.parse::<Position>().with_context(|| format!("bad position {s:?}"))
}

/// A progress bar of `len` steps on stderr in `template`'s style, hidden when stdout is not
/// a terminal (so that piped or `--json` output and logs are not interleaved with it).
pub fn progress(len: u64, template: &str) -> ProgressBar {
    if !std::io::stdout().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("valid template"));
    bar
}

/// Runs `work(i)` for every `i` in `0..n` on up to `threads` threads, each taking the next
/// index when it is free, and hands every result to `on_result` on the calling thread as it
/// comes (so not in index order). An error from `on_result` stops the handing out of work;
/// the items already running end, and the error is returned.
pub fn parallel<T: Send>(
    n: usize,
    threads: usize,
    work: impl Fn(usize) -> T + Sync,
    mut on_result: impl FnMut(usize, T) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let next = AtomicUsize::new(0);
    let (tx, rx) = mpsc::channel();
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, n.max(1)) {
            let (tx, next, work) = (tx.clone(), &next, &work);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                // A closed channel means the caller gave up: stop too.
                if i >= n || tx.send((i, work(i))).is_err() {
                    break;
                }
            });
        }
        drop(tx);
        for (i, r) in rx {
            if let Err(e) = on_result(i, r) {
                next.store(n, Ordering::Relaxed);
                return Err(e);
            }
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::parallel;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn parallel_hands_every_index_once_to_its_result() {
        for threads in [1, 3, 8] {
            let mut seen = vec![0; 50];
            parallel(
                50,
                threads,
                |i| i * i,
                |i, sq| {
                    assert_eq!(sq, i * i);
                    seen[i] += 1;
                    Ok(())
                },
            )
            .unwrap();
            assert!(seen.iter().all(|&n| n == 1), "{threads} threads: {seen:?}");
        }
        let mut calls = 0;
        parallel(
            0,
            4,
            |i| i,
            |_, _| {
                calls += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(calls, 0);
    }

    #[test]
    fn parallel_stops_handing_out_work_after_an_error() {
        let started = AtomicUsize::new(0);
        let work = |i: usize| {
            started.fetch_add(1, Ordering::Relaxed);
            std::thread::sleep(std::time::Duration::from_millis(1));
            i
        };
        let r = parallel(2000, 2, work, |i, _| -> anyhow::Result<()> { anyhow::bail!("failed at {i}") });
        assert!(r.unwrap_err().to_string().starts_with("failed at"));
        // Without the stop all 2000 would run (about a second); a few are already running.
        assert!(started.load(Ordering::Relaxed) < 1000, "{} started", started.load(Ordering::Relaxed));
    }
}
