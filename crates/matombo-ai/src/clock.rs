//! The search's clock: `std::time::Instant` natively; in the browser
//! (`wasm32-unknown-unknown`, where `std::time::Instant::now` panics), a clock read from
//! the host through the imported function `env.matombo_now_ms` (milliseconds, monotonic:
//! JavaScript's `performance.now()`).

#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
pub use std::time::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
pub use host::Instant;

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod host {
    use std::ops::{Add, Sub};
    use std::time::Duration;

    #[link(wasm_import_module = "env")]
    extern "C" {
        fn matombo_now_ms() -> f64;
    }

    /// A moment of the host's monotonic clock, in milliseconds.
    #[derive(Clone, Copy, Debug, PartialEq, PartialOrd)]
    pub struct Instant(f64);

    impl Instant {
        /// Now.
        pub fn now() -> Instant {
            // SAFETY: the import takes nothing and returns a number; the page supplies it.
            Instant(unsafe { matombo_now_ms() })
        }

        /// The time since this moment.
        pub fn elapsed(&self) -> Duration {
            Instant::now() - *self
        }
    }

    impl Add<Duration> for Instant {
        type Output = Instant;
        fn add(self, d: Duration) -> Instant {
            Instant(self.0 + d.as_secs_f64() * 1000.0)
        }
    }

    impl Sub for Instant {
        type Output = Duration;
        fn sub(self, earlier: Instant) -> Duration {
            Duration::from_secs_f64(((self.0 - earlier.0) / 1000.0).max(0.0))
        }
    }
}
