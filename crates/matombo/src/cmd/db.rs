//! `matombo db`: backups and checks of online play's SQLite store, while `serve` runs.

use std::path::PathBuf;

/// The subcommands of `matombo db`.
#[derive(clap::Subcommand)]
pub enum Command {
    /// Copy the store consistently while `serve` runs (SQLite's online backup API).
    #[command(after_help = "Examples:
  matombo db backup --db /var/lib/matombo/online.sqlite3 /backup/online-$(date +%F).sqlite3
  matombo serve --db /backup/online-2026-12-04.sqlite3   # a backup is restored by serving it

The copy is written beside OUT and renamed into place once whole and checked: a failed
backup leaves nothing behind and never changes the store.")]
    Backup {
        /// The store (the file `serve --db` uses).
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// Where the copy goes (must not exist, unless --force).
        #[arg(value_name = "OUT")]
        out: PathBuf,
        /// Replace OUT if it exists.
        #[arg(long)]
        force: bool,
        /// The copy's summary as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Check a store: integrity, schema version, and what it holds. Changes nothing.
    #[command(after_help = "Examples:
  matombo db check --db /var/lib/matombo/online.sqlite3
  matombo db check --db backup.sqlite3 --json

Exits non-zero when the store is damaged or made by a newer matombo.")]
    Check {
        /// The store.
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// The summary as JSON on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// Runs the subcommand.
pub fn run(command: Command) -> anyhow::Result<()> {
    let (summary, json, what) = match command {
        Command::Backup { db, out, force, json } => (
            matombo_web::backup::backup(&db, &out, force).map_err(|e| anyhow::anyhow!("backup failed: {e}"))?,
            json,
            "backup",
        ),
        Command::Check { db, json } => {
            (matombo_web::backup::check(&db).map_err(|e| anyhow::anyhow!("check failed: {e}"))?, json, "check")
        }
    };
    if json {
        println!("{}", serde_json::to_string(&summary)?);
    } else {
        let s = &summary;
        println!(
            "{}: {} ({} bytes)\n  integrity: {}\n  schema version: {} (this matombo writes {})\n  games: {} ({} in progress, {} finished), turns: {}, players: {}",
            what,
            s.db.display(),
            s.bytes,
            if s.integrity_ok { "ok".to_string() } else { s.problems.join("; ") },
            s.schema_version,
            s.schema_current,
            s.games,
            s.games_in_progress,
            s.games_finished,
            s.turns,
            s.players,
        );
    }
    if !summary.ok() {
        anyhow::bail!(if summary.integrity_ok {
            format!(
                "{}: schema version {} is newer than this matombo's {}",
                summary.db.display(),
                summary.schema_version,
                summary.schema_current
            )
        } else {
            format!("{}: the store is damaged", summary.db.display())
        });
    }
    Ok(())
}
