//! The pure core of team play (issue 42): a side played by several members, each with a
//! token of his own and a public member id; who moves (any member, the captain, or a vote
//! of the side); votes in progress; members' marks. No I/O, no clock of its own.

use std::collections::BTreeMap;

use matombo_core::{Hole, Side};

use super::room::secret_eq;

/// Members a side may have at most (removed ones do not count).
pub const MAX_MEMBERS: usize = 64;
/// Shortest and longest vote (ms after its first vote).
pub const VOTE_MS: (u64, u64) = (2_000, 86_400_000);
/// A vote's length when the creator names none.
pub const DEFAULT_VOTE_MS: u64 = 30_000;
/// Holes one member may mark at once.
pub const MAX_MARKS: usize = 16;

/// How a team decides its turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeamMode {
    /// Any member's turn plays.
    Any,
    /// Only the captain's turn plays; the others propose.
    Captain,
    /// The side's members vote each turn.
    Vote,
}

impl TeamMode {
    /// As written on the wire and in the store.
    pub fn as_str(self) -> &'static str {
        match self {
            TeamMode::Any => "any",
            TeamMode::Captain => "captain",
            TeamMode::Vote => "vote",
        }
    }

    /// Reads a mode as written on the wire.
    pub fn parse(s: &str) -> Option<TeamMode> {
        match s {
            "any" => Some(TeamMode::Any),
            "captain" => Some(TeamMode::Captain),
            "vote" => Some(TeamMode::Vote),
            _ => None,
        }
    }
}

/// One member of a team.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Public id.
    pub id: String,
    /// His side.
    pub side: Side,
    /// His secret token.
    pub token: String,
    /// His name.
    pub name: String,
    /// Whether he is his side's captain.
    pub captain: bool,
    /// Removed by the captain: his token grants nothing any more.
    pub removed: bool,
}

/// A vote in progress on one side's turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vote {
    /// The ply voted on.
    pub ply: u32,
    /// The votes in the order they were cast (a member's new vote replaces his old one and
    /// goes last): (member, canonical turn).
    pub votes: Vec<(String, String)>,
    /// When it closes at the latest (`vote_ms` after its first vote, Unix ms).
    pub closes_at: u64,
}

impl Vote {
    /// Votes by turn.
    pub fn tally(&self) -> BTreeMap<String, u32> {
        let mut t = BTreeMap::new();
        for (_, m) in &self.votes {
            *t.entry(m.clone()).or_insert(0) += 1;
        }
        t
    }

    /// The turn chosen: most votes; a tie goes to the turn voted for first (among the
    /// votes standing).
    pub fn winner(&self) -> Option<String> {
        let tally = self.tally();
        let best = tally.values().copied().max()?;
        self.votes.iter().map(|(_, m)| m).find(|m| tally[*m] == best).cloned()
    }

    /// Records `member`'s vote for `token`, replacing his earlier one.
    pub fn cast(&mut self, member: &str, token: String) {
        self.votes.retain(|(m, _)| m != member);
        self.votes.push((member.to_string(), token));
    }
}

/// The teams of a room.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Teams {
    /// Who moves.
    pub mode: TeamMode,
    /// How long a vote stays open after its first vote.
    pub vote_ms: u64,
    /// Each side's invitation code, by `Side::index`.
    pub invites: [String; 2],
    /// Every member who ever joined, in the order they joined.
    pub members: Vec<Member>,
    /// The vote in progress (vote mode), on the side to move's turn.
    pub vote: Option<Vote>,
    /// Each member's marks (member id → holes), shown to his side only.
    pub marks: BTreeMap<String, Vec<String>>,
}

/// Why a team request was refused; each refusal changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TeamError {
    /// The invitation is neither side's.
    #[error("wrong invitation code")]
    BadInvite,
    /// The side has [`MAX_MEMBERS`] members.
    #[error("this side has {MAX_MEMBERS} members, the most a side may have")]
    Full,
    /// The request needs the captain.
    #[error("only your side's captain may do this")]
    NotCaptain,
    /// No such member on the sender's side.
    #[error("no member {0:?} on your side")]
    NoMember(String),
    /// A captain cannot remove himself, or pass the captaincy to himself.
    #[error("choose another member than yourself")]
    Yourself,
    /// A name that looks like one already on the rosters.
    #[error("name: looks like the name of someone already in this game; choose another")]
    LookAlike,
}

impl Teams {
    /// New teams with no member yet.
    pub fn new(mode: TeamMode, vote_ms: u64, invites: [String; 2]) -> Teams {
        Teams { mode, vote_ms, invites, members: Vec::new(), vote: None, marks: BTreeMap::new() }
    }

    /// The active member a token belongs to, compared in constant time with every member.
    pub fn member_of(&self, token: &str) -> Option<&Member> {
        let mut found = None;
        for m in &self.members {
            if secret_eq(&m.token, token) && !m.removed {
                found = Some(m);
            }
        }
        found
    }

    /// An active member by id.
    pub fn member(&self, id: &str) -> Option<&Member> {
        self.members.iter().find(|m| m.id == id && !m.removed)
    }

    /// The active members of a side.
    pub fn active(&self, side: Side) -> impl Iterator<Item = &Member> {
        self.members.iter().filter(move |m| m.side == side && !m.removed)
    }

    /// The side an invitation code joins, if there is room on it (nothing changes).
    pub fn check_join(&self, invite: &str, name: &str) -> Result<Side, TeamError> {
        let mut side = None;
        for s in [Side::South, Side::North] {
            if secret_eq(&self.invites[s.index()], invite) {
                side = Some(s);
            }
        }
        let side = side.ok_or(TeamError::BadInvite)?;
        if self.active(side).count() >= MAX_MEMBERS {
            return Err(TeamError::Full);
        }
        if self.members.iter().any(|m| !m.removed && super::names::look_alike(&m.name, name)) {
            return Err(TeamError::LookAlike);
        }
        Ok(side)
    }

    /// Checks that `by` may pass the captaincy to, or remove, `target` (same side,
    /// another active member); answers the target's side.
    pub fn check_captain_act(&self, by: &str, target: &str) -> Result<Side, TeamError> {
        let me = self.member(by).ok_or(TeamError::NotCaptain)?;
        if !me.captain {
            return Err(TeamError::NotCaptain);
        }
        if by == target {
            return Err(TeamError::Yourself);
        }
        match self.member(target) {
            Some(t) if t.side == me.side => Ok(me.side),
            _ => Err(TeamError::NoMember(super::room::truncate(target, 40))),
        }
    }

    /// Makes `member` his side's captain (the others of his side no longer are).
    pub fn commit_captain(&mut self, member: &str) {
        let Some(side) = self.member(member).map(|m| m.side) else { return };
        for m in self.members.iter_mut().filter(|m| m.side == side) {
            m.captain = m.id == member;
        }
    }

    /// Removes `member`: his token grants nothing from now on; his marks and vote go.
    pub fn commit_remove(&mut self, member: &str) {
        for m in self.members.iter_mut().filter(|m| m.id == member) {
            m.removed = true;
            m.captain = false;
        }
        self.marks.remove(member);
        if let Some(v) = &mut self.vote {
            v.votes.retain(|(m, _)| m != member);
        }
    }
}

/// Checks a member's marks against a board of `n` holes a row: at most [`MAX_MARKS`]
/// holes, each a hole of the board, written canonically (duplicates dropped).
pub fn check_marks(holes: &[String], n: usize) -> Result<Vec<String>, String> {
    if holes.len() > MAX_MARKS {
        return Err(format!("holes: at most {MAX_MARKS}"));
    }
    let mut out: Vec<String> = Vec::with_capacity(holes.len());
    for h in holes {
        let hole: Hole = h
            .parse()
            .ok()
            .and_then(|x: Hole| x.check(n).ok())
            .ok_or_else(|| format!("holes: {:?} is not a hole of this board", super::room::truncate(h, 8)))?;
        let s = hole.to_string();
        if !out.contains(&s) {
            out.push(s);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, side: Side, captain: bool) -> Member {
        Member {
            id: id.into(),
            side,
            token: format!("{id}{}", "t".repeat(30)),
            name: id.into(),
            captain,
            removed: false,
        }
    }

    #[test]
    fn joins_captains_and_removals() {
        let mut t = Teams::new(TeamMode::Captain, DEFAULT_VOTE_MS, ["s".repeat(24), "n".repeat(24)]);
        t.members.push(member("a", Side::South, true));
        t.members.push(member("b", Side::South, false));
        t.members.push(member("c", Side::North, true));
        assert_eq!(t.check_join(&"n".repeat(24), "Dudu"), Ok(Side::North));
        assert_eq!(t.check_join("x", "Dudu"), Err(TeamError::BadInvite));
        assert_eq!(t.check_join(&"s".repeat(24), "A"), Err(TeamError::LookAlike));
        assert_eq!(t.check_captain_act("b", "a"), Err(TeamError::NotCaptain));
        assert_eq!(t.check_captain_act("a", "a"), Err(TeamError::Yourself));
        assert!(matches!(t.check_captain_act("a", "c"), Err(TeamError::NoMember(_))));
        assert_eq!(t.check_captain_act("a", "b"), Ok(Side::South));
        t.commit_captain("b");
        assert!(t.member("b").unwrap().captain && !t.member("a").unwrap().captain);
        assert!(t.member("c").unwrap().captain, "the other side keeps its captain");
        let tok = t.member("a").unwrap().token.clone();
        assert_eq!(t.member_of(&tok).map(|m| m.id.as_str()), Some("a"));
        t.commit_remove("a");
        assert_eq!(t.member_of(&tok), None);
        assert_eq!(t.active(Side::South).count(), 1);
    }

    #[test]
    fn a_side_is_full_at_its_most_members() {
        let mut t = Teams::new(TeamMode::Any, DEFAULT_VOTE_MS, ["s".repeat(24), "n".repeat(24)]);
        for i in 0..MAX_MEMBERS {
            t.members.push(member(&format!("m{i}x"), Side::South, i == 0));
        }
        assert_eq!(t.check_join(&"s".repeat(24), ""), Err(TeamError::Full));
        t.commit_remove("m3x");
        assert_eq!(t.check_join(&"s".repeat(24), ""), Ok(Side::South));
    }

    #[test]
    fn votes_tally_and_ties_go_to_the_first() {
        let mut v = Vote { ply: 0, votes: Vec::new(), closes_at: 0 };
        assert_eq!(v.winner(), None);
        v.cast("a", "B2".into());
        v.cast("b", "B3".into());
        assert_eq!(v.winner().as_deref(), Some("B2"));
        v.cast("c", "B3".into());
        assert_eq!(v.winner().as_deref(), Some("B3"));
        // A new vote replaces the old one.
        v.cast("c", "B2".into());
        assert_eq!(v.tally(), BTreeMap::from([("B2".to_string(), 2), ("B3".to_string(), 1)]));
        assert_eq!(v.winner().as_deref(), Some("B2"));
    }

    #[test]
    fn marks_are_holes_of_the_board() {
        assert!(check_marks(&["B2".into(), "c5".into()], 8).unwrap_err().contains("c5"));
        assert_eq!(check_marks(&["B2".into(), "a5".into(), "B2".into()], 8), Ok(vec!["B2".into(), "a5".into()]));
        assert!(check_marks(&["B9".into()], 8).is_err());
        assert!(check_marks(&vec!["B1".to_string(); 17], 8).is_err());
        assert_eq!(check_marks(&[], 8), Ok(vec![]));
    }
}
