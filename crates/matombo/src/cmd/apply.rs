//! `matombo apply`: play turns in order and print the resulting position.

use anyhow::bail;
use matombo_core::{Game, Token};

/// Arguments of `matombo apply`.
#[derive(clap::Args)]
#[command(after_help = "Examples:\n  matombo apply tsoro:8 B2+ b2=\n  matombo apply nsolo:8 B1xb3:2 --json")]
pub struct Args {
    /// Position string, or a ruleset name for its start position.
    pub position: String,
    /// Turn tokens (RULES.md §6.3), played in order.
    pub turns: Vec<String>,
    /// Print a JSON object with the position and the outcome.
    #[arg(long)]
    pub json: bool,
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    let start = super::parse_position(&args.position)?;
    let mut game = Game::new(start);
    for (i, text) in args.turns.iter().enumerate() {
        let legal = |game: &Game| {
            if let Some(o) = game.outcome() {
                return format!("none, the game is over ({o})");
            }
            let list: Vec<String> = game.position().turns().take(200).map(|(t, _)| t.to_string()).collect();
            list.join(" ")
        };
        let token: Token = match text.parse() {
            Ok(t) => t,
            Err(e) => bail!("turn {} {text:?} is malformed: {e}\nlegal turns: {}", i + 1, legal(&game)),
        };
        if let Err(e) = game.play(&token) {
            bail!("turn {} {text:?}: {e}\nlegal turns: {}", i + 1, legal(&game));
        }
    }
    if args.json {
        let outcome = game.outcome().map(|o| {
            serde_json::json!({
                "result": o.result(),
                "winner": o.winner.map(|w| w.to_string()),
                "termination": o.termination.tag(),
                "text": o.to_string(),
            })
        });
        println!("{}", serde_json::json!({"position": game.position().to_string(), "outcome": outcome}));
    } else {
        println!("{}", game.position());
        if let Some(o) = game.outcome() {
            eprintln!("game over: {o}");
        }
    }
    Ok(())
}
