//! What the lobby's WebSocket sends: players, ratings, challenges, listed games, seeks.

use serde::Serialize;

use super::*;

/// A player's rating in one group.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RatingJson {
    /// Rating.
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
    /// Glicko-2 volatility.
    pub volatility: f64,
    /// Rated games played.
    pub games: u32,
    /// The rating is not established yet.
    pub provisional: bool,
}

/// A player's public view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PlayerJson {
    /// Public id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Unix ms.
    pub created: u64,
    /// Ratings by group.
    pub ratings: BTreeMap<String, RatingJson>,
}

/// A challenger as a challenge shows him.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Challenger {
    /// Public id.
    pub id: String,
    /// Display name.
    pub name: String,
    /// Rating in the challenge's group.
    pub rating: f64,
    /// Its deviation.
    pub rd: f64,
    /// Not established yet.
    pub provisional: bool,
}

/// An open or link-only challenge.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChallengeJson {
    /// Its id.
    pub id: String,
    /// The ruleset's name.
    pub ruleset: String,
    /// `tsoro` or `nsolo`.
    pub game: &'static str,
    /// Holes per row.
    pub size: usize,
    /// The heads option.
    pub heads: u8,
    /// The bonus option.
    pub bonus: u8,
    /// The challenger's side.
    pub side: SideChoice,
    /// The clock, or null.
    pub clock: Option<TimeControl>,
    /// Rated.
    pub rated: bool,
    /// Listed (false: link-only).
    pub open: bool,
    /// Unix ms.
    pub created: u64,
    /// The rating group.
    pub group: String,
    /// Who made it.
    pub by: Challenger,
    /// The page that accepts it.
    pub link: String,
}

/// A listed game in progress.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ListedGame {
    /// The room.
    pub id: String,
    /// The ruleset's name.
    pub ruleset: String,
    /// The rating group.
    pub group: String,
    /// The clock, or null.
    pub clock: Option<TimeControl>,
    /// Rated.
    pub rated: bool,
    /// South's player.
    pub south: SeatPlayer,
    /// North's player.
    pub north: SeatPlayer,
    /// Unix ms.
    pub started: u64,
}

/// A connection's quick-pairing request.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SeekJson {
    /// The ruleset's name.
    pub ruleset: String,
    /// The clock, or null.
    pub clock: Option<TimeControl>,
    /// Rated.
    pub rated: bool,
    /// Unix ms.
    pub since: u64,
}

/// When a rated lobby game is rated: the welcome tells the pages.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct RatedRules {
    /// Turns each side must have made, else the game ends unrated.
    pub min_turns_each: u32,
    /// Rated games one pair of players may play in 24 hours.
    pub per_pair_per_day: u32,
}

/// Everything the lobby's WebSocket sends.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LobbyOut {
    /// The answer to `hello`.
    Welcome {
        /// The player, or null when watching.
        you: Option<PlayerJson>,
        /// Open challenges (and the player's own link-only ones), oldest first.
        challenges: Vec<ChallengeJson>,
        /// Listed games in progress.
        games: Vec<ListedGame>,
        /// The connection's seek (always null at the hello).
        seeking: Option<SeekJson>,
        /// When a rated game counts (issue 37's farming rules).
        rated_rules: RatedRules,
    },
    /// The player changed.
    You {
        /// The player now.
        player: PlayerJson,
    },
    /// A challenge was made.
    ChallengeAdded {
        /// The challenge.
        challenge: ChallengeJson,
    },
    /// A challenge is gone.
    ChallengeRemoved {
        /// Its id.
        id: String,
        /// `accepted`, `cancelled` or `left`.
        reason: &'static str,
    },
    /// A game was made for this player.
    Matched {
        /// The new room.
        room: String,
        /// The player's side.
        side: SideJson,
        /// His seat token.
        token: String,
        /// The room's links.
        links: Links,
        /// The challenge it comes from, or null (quick pairing).
        challenge: Option<String>,
    },
    /// A game in progress listed.
    GameAdded {
        /// The game.
        game: ListedGame,
    },
    /// A listed game is over.
    GameRemoved {
        /// Its room.
        id: String,
    },
    /// The connection's quick pairing now.
    Seeking {
        /// The seek, or null (stopped or paired).
        seek: Option<SeekJson>,
    },
    /// A transfer code.
    TransferCode {
        /// The code.
        code: String,
        /// Unix ms.
        expires: u64,
    },
    /// The answer to `ping`.
    Pong,
    /// A refusal: nothing changed.
    Error(WireError),
}
