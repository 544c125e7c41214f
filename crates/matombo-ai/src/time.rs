//! Time management: the time budget of one search, the moment it must stop, and whether
//! another iteration of iterative deepening is worth starting.

use std::time::Duration;

use crate::clock::Instant;
use crate::Limits;

/// The budget of a search that was given no limit at all.
pub(crate) const DEFAULT_TIME: Duration = Duration::from_secs(1);
/// Time kept back from a time budget for returning the answer.
const MARGIN: Duration = Duration::from_millis(2);

/// Alpha-beta's time budget: the limit given, or [`DEFAULT_TIME`] when no limit (time,
/// depth or nodes) is set.
pub(crate) fn search_budget(limits: Limits) -> Option<Duration> {
    match limits {
        Limits { time: None, depth: None, nodes: None } => Some(DEFAULT_TIME),
        _ => limits.time,
    }
}

/// MCTS's time budget: the limit given, or [`DEFAULT_TIME`] when neither time nor nodes
/// are limited (a depth limit does not bound its iterations).
pub(crate) fn mcts_budget(limits: Limits) -> Option<Duration> {
    match limits {
        Limits { time: None, nodes: None, .. } => Some(DEFAULT_TIME),
        _ => limits.time,
    }
}

/// The clock of one search: when it started, its budget and the moment it must stop.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Deadline {
    started: Instant,
    time: Option<Duration>,
    at: Option<Instant>,
}

impl Deadline {
    /// A search starting now, without a time budget.
    pub fn start() -> Deadline {
        Deadline { started: Instant::now(), time: None, at: None }
    }

    /// A search starting now with budget `time`.
    pub fn starting_now(time: Option<Duration>) -> Deadline {
        Deadline::start().with_time(time)
    }

    /// This search given budget `time`, counted from its start, less a margin for
    /// returning the answer.
    pub fn with_time(self, time: Option<Duration>) -> Deadline {
        Deadline { time, at: time.map(|t| self.started + t.saturating_sub(MARGIN)), ..self }
    }

    /// When the search started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// The time since the search started.
    pub fn elapsed(&self) -> Duration {
        self.started.elapsed()
    }

    /// Whether the budget is spent.
    pub fn passed(&self) -> bool {
        self.at.is_some_and(|d| Instant::now() >= d)
    }

    /// Whether the next iteration of iterative deepening should start. It costs several
    /// times the last one, so none starts past half the budget, unless the search is told
    /// to use the whole time (its last iteration is then cut at the deadline).
    pub fn next_iteration_fits(&self, whole_time: bool) -> bool {
        match self.time {
            Some(t) => whole_time || self.elapsed() * 2 <= t,
            None => true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_default_only_without_limits() {
        assert_eq!(search_budget(Limits::default()), Some(DEFAULT_TIME));
        assert_eq!(search_budget(Limits { depth: Some(3), ..Limits::default() }), None);
        assert_eq!(mcts_budget(Limits { depth: Some(3), ..Limits::default() }), Some(DEFAULT_TIME));
        assert_eq!(mcts_budget(Limits { nodes: Some(9), ..Limits::default() }), None);
        let t = Some(Duration::from_millis(70));
        assert_eq!(search_budget(Limits { time: t, depth: Some(3), nodes: None }), t);
    }

    #[test]
    fn a_spent_budget_has_passed_and_starts_no_iteration() {
        let none = Deadline::start();
        assert!(!none.passed() && none.next_iteration_fits(false));
        let spent = Deadline::starting_now(Some(Duration::ZERO));
        assert!(spent.passed());
        std::thread::sleep(Duration::from_millis(1));
        assert!(!spent.next_iteration_fits(false));
        assert!(spent.next_iteration_fits(true));
        let long = Deadline::starting_now(Some(Duration::from_secs(3600)));
        assert!(!long.passed() && long.next_iteration_fits(false));
    }
}
