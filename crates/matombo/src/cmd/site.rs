//! `matombo site DIR`: the web site as static files (catalogue, rules in four languages,
//! the board with its engine, the offline worker), to put on any static file server.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

/// Arguments of `matombo site`.
#[derive(clap::Args)]
#[command(after_help = "Examples:
  matombo site site/                  # then: cd site && python3 -m http.server
  matombo site /var/www/matombo --force

Links are relative: the directory can be served at any address. Online play needs
`matombo serve` and is not part of the static site.")]
pub struct Args {
    /// Directory to write into (created if missing; must be empty unless --force).
    pub dir: PathBuf,
    /// Write into a directory that is not empty (files of the same name are replaced).
    #[arg(long)]
    pub force: bool,
    /// Print a JSON summary on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Checks `dir` before anything is written: a directory (or nothing), empty unless `force`.
fn check(dir: &Path, force: bool) -> anyhow::Result<()> {
    match std::fs::metadata(dir) {
        Ok(m) if !m.is_dir() => bail!("{} exists and is not a directory", dir.display()),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).with_context(|| format!("cannot read {}", dir.display()))?;
            if !force && entries.next().is_some() {
                bail!("{} is not empty: choose an empty directory, or pass --force to write into it", dir.display());
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot use {}", dir.display())),
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> anyhow::Result<()> {
    check(&args.dir, args.force)?;
    std::fs::create_dir_all(&args.dir).with_context(|| format!("cannot create {}", args.dir.display()))?;
    let n = matombo_web::static_site::write(&args.dir)
        .with_context(|| format!("writing the site into {}", args.dir.display()))?;
    if args.json {
        println!("{}", serde_json::json!({"dir": args.dir.display().to_string(), "files": n}));
    } else {
        println!("wrote {n} files to {}; open index.html through a web server, e.g.", args.dir.display());
        println!("  cd {} && python3 -m http.server", args.dir.display());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_a_non_empty_directory_without_force_and_writes_nothing() {
        let dir = std::env::temp_dir().join(format!("matombo-site-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("keep.txt"), "mine").unwrap();
        let err = run(Args { dir: dir.clone(), force: false, json: false }).unwrap_err();
        assert!(err.to_string().contains("not empty"), "{err}");
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "nothing written");
        run(Args { dir: dir.clone(), force: true, json: true }).unwrap();
        assert!(dir.join("index.html").is_file() && dir.join("play-bn.html").is_file());
        assert!(dir.join("static/wasm/matombo.wasm").is_file() && dir.join("sw.js").is_file());
        let index = std::fs::read_to_string(dir.join("index.html")).unwrap();
        assert!(!index.contains("href=\"/") && !index.contains("src=\"/"), "relative links only");
        assert_eq!(std::fs::read_to_string(dir.join("keep.txt")).unwrap(), "mine");
        let file = dir.join("keep.txt");
        assert!(check(&file, true).unwrap_err().to_string().contains("not a directory"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
