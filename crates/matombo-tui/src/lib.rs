//! Full-screen terminal board (to come).
