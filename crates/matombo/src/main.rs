//! `matombo`: the one command for Tsoro and Nsolo. Each subcommand lives in `cmd/`.

use clap::{Parser, Subcommand};

mod cmd;

/// Tsoro and Nsolo, the four-row mancala games of southern and central Africa.
///
/// Positions are written as in RULES.md §6.2, e.g. "tsoro:8 2*8/0*8/0*8/2*8 S"; wherever
/// a position is asked for, a bare ruleset name (tsoro, tsoro:8,heads=1, nsolo:36) means
/// its start position.
#[derive(Parser)]
#[command(name = "matombo", version, about, long_about = None, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count turn sequences to a depth (RULES.md §7).
    Perft(cmd::perft::Args),
    /// List every legal turn with the position it leads to.
    Turns(cmd::turns::Args),
    /// Play turns in order and print the resulting position.
    Apply(cmd::apply::Args),
    /// Draw a position in the terminal.
    Show(cmd::show::Args),
    /// Measure the speed of the rules engine and the search.
    Bench(cmd::bench::Args),
    /// Analyse a position with the AI: best turn, score, principal variation.
    Analyse(cmd::analyse::Args),
    /// Review a recorded game: each turn's loss against the engine's best, an annotated record.
    Review(cmd::review::Args),
    /// Play a match between two engines and report the score with statistics.
    Match(cmd::matches::Args),
    /// Speak the line-based engine protocol on stdin/stdout.
    Engine(cmd::engine::Args),
    /// Play in the terminal on a full-screen board.
    Play(cmd::play::Args),
    /// Serve the web site: catalogue, rules, board, online play.
    Serve(cmd::serve::Args),
    /// Back up or check online play's store (while `serve` runs).
    #[command(subcommand)]
    Db(cmd::db::Command),
    /// Write the web site (catalogue, rules, board, engine) as static files.
    Site(cmd::site::Args),
    /// Drive many concurrent online games against a server and report latency.
    Loadtest(cmd::loadtest::Args),
    /// Replay hostile loads on loopback and measure what an honest client sees meanwhile.
    Attack(cmd::attack::Args),
    /// Tune the evaluation weights by self-play (SPSA), or check weights in a match.
    Tune(cmd::tune::Args),
    /// The NNUE-style network: self-play data for it, and its training.
    #[command(subcommand)]
    Train(cmd::train::Command),
    /// Endgame tables: build, check and probe exact values of positions with few stones.
    #[command(subcommand)]
    Egtb(cmd::egtb::Command),
    /// Prove a position's value (forced win or loss) by exhaustive search.
    Solve(cmd::solve::Args),
    /// Puzzles: mine them from self-play (each proved), list them, re-prove them.
    Puzzles(cmd::puzzles::Args),
}

/// A closed pipe (`matombo perft tsoro:8 --divide 3 | head`) ends the program quietly, as
/// it ends other Unix tools, instead of a panic in `println!`. The network commands keep
/// Rust's default (the signal ignored), so that a dropped socket is an error, not an exit.
#[cfg(unix)]
fn end_quietly_on_closed_pipe() {
    // SAFETY: sets one signal's disposition to the system default, before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    #[cfg(unix)]
    if !matches!(cli.command, Command::Serve(_) | Command::Loadtest(_) | Command::Attack(_)) {
        end_quietly_on_closed_pipe();
    }
    // Logs go to stderr so that stdout stays machine-readable.
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("MATOMBO_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"))
                // The WebSocket library logs whole frames (seat tokens among them) below warn.
                .add_directive("tungstenite=warn".parse().expect("a valid directive"))
                .add_directive("tokio_tungstenite=warn".parse().expect("a valid directive")),
        )
        .init();
    let result = match cli.command {
        Command::Perft(a) => cmd::perft::run(a),
        Command::Turns(a) => cmd::turns::run(a),
        Command::Apply(a) => cmd::apply::run(a),
        Command::Show(a) => cmd::show::run(a),
        Command::Bench(a) => cmd::bench::run(a),
        Command::Analyse(a) => cmd::analyse::run(a),
        Command::Review(a) => cmd::review::run(a),
        Command::Match(a) => cmd::matches::run(a),
        Command::Engine(a) => cmd::engine::run(a),
        Command::Play(a) => cmd::play::run(a),
        Command::Serve(a) => cmd::serve::run(a),
        Command::Db(a) => cmd::db::run(a),
        Command::Site(a) => cmd::site::run(a),
        Command::Loadtest(a) => cmd::loadtest::run(a),
        Command::Attack(a) => cmd::attack::run(a),
        Command::Tune(a) => cmd::tune::run(a),
        Command::Train(a) => cmd::train::run(a),
        Command::Egtb(a) => cmd::egtb::run(a),
        Command::Solve(a) => cmd::solve::run(a),
        Command::Puzzles(a) => cmd::puzzles::run(a),
    };
    match result {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
