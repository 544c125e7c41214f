//! `matombo play` (to come).

/// Arguments of `matombo play`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
