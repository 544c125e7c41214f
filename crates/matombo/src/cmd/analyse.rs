//! `matombo analyse` (to come).

/// Arguments of `matombo analyse`.
#[derive(clap::Args)]
pub struct Args {}

/// Runs the subcommand.
pub fn run(_args: Args) -> anyhow::Result<()> {
    anyhow::bail!("not built yet")
}
