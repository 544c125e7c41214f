//! A worker pool handing out numbered items.

use std::ops::ControlFlow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

/// Runs `work(i)` for every `i` in `0..n` on up to `threads` threads, each taking the next
/// index when it is free, and hands every result to `on_result` on the calling thread as it
/// comes (so not in index order). `on_result` returning an error or `Break` stops the
/// handing out of work: the items already running end (their results are dropped), and the
/// error is returned. `Ok(true)` means every item was handed over, `Ok(false)` that
/// `on_result` stopped early.
pub fn parallel<T: Send, E>(
    n: usize,
    threads: usize,
    work: impl Fn(usize) -> T + Sync,
    mut on_result: impl FnMut(usize, T) -> Result<ControlFlow<()>, E>,
) -> Result<bool, E> {
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
            let flow = on_result(i, r);
            if !matches!(flow, Ok(ControlFlow::Continue(()))) {
                next.store(n, Ordering::Relaxed);
                return flow.map(|_| false);
            }
        }
        Ok(true)
    })
}

#[cfg(test)]
mod tests {
    use super::parallel;
    use std::ops::ControlFlow;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn parallel_hands_every_index_once_to_its_result() {
        for threads in [1, 3, 8] {
            let mut seen = vec![0; 50];
            let all = parallel(
                50,
                threads,
                |i| i * i,
                |i, sq| -> Result<_, ()> {
                    assert_eq!(sq, i * i);
                    seen[i] += 1;
                    Ok(ControlFlow::Continue(()))
                },
            );
            assert_eq!(all, Ok(true));
            assert!(seen.iter().all(|&n| n == 1), "{threads} threads: {seen:?}");
        }
        let mut calls = 0;
        let all = parallel(
            0,
            4,
            |i| i,
            |_, _| -> Result<_, ()> {
                calls += 1;
                Ok(ControlFlow::Continue(()))
            },
        );
        assert_eq!((all, calls), (Ok(true), 0));
    }

    #[test]
    fn parallel_stops_handing_out_work_after_an_error_or_a_break() {
        for stop_by_error in [true, false] {
            let started = AtomicUsize::new(0);
            let work = |i: usize| {
                started.fetch_add(1, Ordering::Relaxed);
                std::thread::sleep(std::time::Duration::from_millis(1));
                i
            };
            let r = parallel(2000, 2, work, |i, _| {
                if stop_by_error {
                    Err(format!("failed at {i}"))
                } else {
                    Ok(ControlFlow::Break(()))
                }
            });
            match r {
                Err(e) => assert!(stop_by_error && e.starts_with("failed at")),
                Ok(all) => assert!(!stop_by_error && !all),
            }
            // Without the stop all 2000 would run (about a second); a few are already running.
            assert!(started.load(Ordering::Relaxed) < 1000, "{} started", started.load(Ordering::Relaxed));
        }
    }
}
