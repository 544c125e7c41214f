//! The web server (to come).
