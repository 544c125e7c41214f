//! The key-handling state machine, driven without a terminal.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use matombo_core::{Decision, Hole, Phase, Position, Side, Token};
use matombo_tui::app::frames;
use matombo_tui::{App, Effect, Player};
use rand::rngs::SmallRng;
use rand::SeedableRng;

fn start(ruleset: &str) -> Position {
    Position::start(ruleset.parse().unwrap())
}

fn hotseat(ruleset: &str) -> App {
    App::new(start(ruleset), [Player::Human, Player::Human], 0)
}

fn key(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.key(KeyEvent::from(code))
}

fn press(app: &mut App, keys: &str) -> Vec<Effect> {
    let mut out = Vec::new();
    for c in keys.chars() {
        let code = if c == '\n' { KeyCode::Enter } else { KeyCode::Char(c) };
        out.extend(key(app, code));
    }
    out
}

fn hole(s: &str) -> Hole {
    s.parse().unwrap()
}

fn moves(app: &App) -> Vec<String> {
    app.game().moves().iter().map(Token::to_string).collect()
}

#[test]
fn typing_a_label_and_enter_sows_then_head_choice() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B2");
    assert_eq!(app.cursor(), Some(hole("B2")));
    assert_eq!(app.typed(), "B2");
    press(&mut app, "\n");
    assert_eq!(app.turn().phase(), Phase::Head(hole("B7")));
    press(&mut app, "s");
    assert_eq!(moves(&app), ["B2="]);
    assert_eq!(app.game().position(), &start("tsoro:8").play(&"B2=".parse().unwrap()).unwrap());
    assert_eq!(app.turn().mover(), Side::North);
}

#[test]
fn head_choice_with_arrows_and_enter() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B2\n");
    assert!(app.head_continue(), "continue is offered first");
    key(&mut app, KeyCode::Right);
    assert!(!app.head_continue());
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Enter);
    assert_eq!(moves(&app), ["B2+"]);
}

#[test]
fn lowercase_row_letters_mean_the_movers_rows() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "b2\ns");
    // North to move: "B3" means North's b3.
    press(&mut app, "B3");
    assert_eq!(app.cursor(), Some(hole("b3")));
    press(&mut app, "\n");
    assert_eq!(app.game().moves().len() + usize::from(app.turn().partial_token().is_some()), 2);
}

#[test]
fn arrows_move_in_screen_directions() {
    let mut app = hotseat("tsoro:8");
    assert_eq!(app.cursor(), Some(hole("B1")), "first legal start");
    key(&mut app, KeyCode::Right);
    assert_eq!(app.cursor(), Some(hole("B2")));
    key(&mut app, KeyCode::Up);
    assert_eq!(app.cursor(), Some(hole("A2")), "A2 is above B2");
    key(&mut app, KeyCode::Left);
    key(&mut app, KeyCode::Left);
    assert_eq!(app.cursor(), Some(hole("A1")), "the cursor stops at the edge");
    // North's rows run the other way: b8 is at the left of the top row.
    press(&mut app, "B1\ns");
    assert_eq!(app.turn().mover(), Side::North);
    press(&mut app, "b8");
    key(&mut app, KeyCode::Right);
    assert_eq!(app.cursor(), Some(hole("b7")));
    key(&mut app, KeyCode::Down);
    assert_eq!(app.cursor(), Some(hole("a7")), "a7 is below b7");
}

#[test]
fn tab_visits_only_legal_starts() {
    let p: Position = "tsoro:8 2*8/0*8/0*5,2,0*2/0*2,2,0*5 S".parse().unwrap();
    let mut app = App::new(p, [Player::Human, Player::Human], 0);
    assert_eq!(app.legal_starts(), [hole("B3"), hole("A6")]);
    assert_eq!(app.cursor(), Some(hole("B3")));
    // Screen order: A6 (row A, above) comes before B3, so Tab from B3 wraps round to A6.
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.cursor(), Some(hole("A6")));
    key(&mut app, KeyCode::Tab);
    assert_eq!(app.cursor(), Some(hole("B3")));
    key(&mut app, KeyCode::BackTab);
    assert_eq!(app.cursor(), Some(hole("A6")));
}

#[test]
fn illegal_start_is_refused_and_changes_nothing() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "A3\n");
    assert_eq!(app.message(), "A3 is not a legal start");
    assert_eq!(app.turn().phase(), Phase::Start);
    assert!(app.game().moves().is_empty());
    press(&mut app, "B9");
    assert!(app.message().contains("no hole B9"), "{}", app.message());
    assert_eq!(app.typed(), "B");
}

#[test]
fn bonus_picks_with_the_cursor_and_done() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B1\nb3\ncB5\ncb6\n");
    assert_eq!(app.turn().phase(), Phase::Bonus { left: 2 });
    assert_eq!(app.cursor(), Some(hole("B2")), "first pickable hole");
    press(&mut app, "\n");
    assert_eq!(app.picks(), [hole("B2")]);
    assert_eq!(app.picks_left(), 1);
    press(&mut app, "A8\n");
    assert_eq!(moves(&app), ["B1", "b3+", "B5+", "b6xB2xA8"]);
    // The bonus is a right: d ends it early.
    app.key(KeyEvent::from(KeyCode::Char('u')));
    press(&mut app, "b6\n\nd");
    assert_eq!(moves(&app), ["B1", "b3+", "B5+", "b6xB2"]);
}

#[test]
fn bonus_picks_in_any_order_record_the_canonical_token() {
    // Tsoro: the inner hole A8 first, then the outer B2: written xB2xA8 all the same, and
    // picking a late hole first leaves the earlier ones on offer.
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B1\nb3\ncB5\ncb6\n");
    press(&mut app, "A8\n");
    assert_eq!(app.picks_left(), 1);
    assert!(app.pickable().contains(&hole("B2")), "{:?}", app.pickable());
    assert!(!app.pickable().contains(&hole("A8")), "a Tsoro hole is taken once");
    assert_eq!(app.shown_count(hole("A8")), 0, "the picked hole shows empty");
    press(&mut app, "B2\n");
    assert_eq!(moves(&app), ["B1", "b3+", "B5+", "b6xB2xA8"]);
    // u takes a pick back before the turn; one pick then d gives the one-pick token.
    press(&mut app, "u");
    press(&mut app, "b6\nA8\nu");
    assert!(app.picks().is_empty());
    press(&mut app, "A8\nd");
    assert_eq!(moves(&app), ["B1", "b3+", "B5+", "b6xA8"]);

    // Nsolo: the last hole in canonical order first (the engine alone would then refuse any
    // earlier hole), then the first: recorded in canonical order.
    let mut app = hotseat("nsolo:8");
    let before = app.game().position().clone();
    press(&mut app, "B1\n");
    assert_eq!(app.picks_left(), 2, "{:?}", app.turn().phase());
    let targets = app.pickable();
    let (first, last) = (targets[0], *targets.last().unwrap());
    press(&mut app, &format!("{last}\n"));
    assert_eq!(app.picks_left(), 1);
    assert!(app.pickable().contains(&first), "{:?}", app.pickable());
    press(&mut app, &format!("{first}\n"));
    let token = moves(&app)[0].clone();
    assert!(token.ends_with(&format!("x{first}x{last}")), "{token}");
    assert!(before.play(&token.parse().unwrap()).is_ok(), "{token} is legal");
}

#[test]
fn undo_and_redo_in_hotseat() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B2\ns");
    press(&mut app, "b2\ns");
    assert_eq!(moves(&app), ["B2=", "b2="]);
    press(&mut app, "u");
    assert_eq!(moves(&app), ["B2="]);
    press(&mut app, "u");
    assert!(moves(&app).is_empty());
    press(&mut app, "u");
    assert_eq!(app.message(), "nothing to undo");
    press(&mut app, "r");
    assert_eq!(moves(&app), ["B2="]);
    press(&mut app, "r");
    assert_eq!(moves(&app), ["B2=", "b2="]);
    press(&mut app, "r");
    assert_eq!(app.message(), "nothing to redo");
    // A new move after an undo drops the redo stack.
    press(&mut app, "u");
    press(&mut app, "b3\ns");
    press(&mut app, "r");
    assert_eq!(app.message(), "nothing to redo");
}

#[test]
fn undo_takes_back_a_half_made_turn_first() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B2\ns");
    press(&mut app, "b2\n");
    assert!(matches!(app.turn().phase(), Phase::Head(_)));
    press(&mut app, "u");
    assert_eq!(app.turn().phase(), Phase::Start);
    assert_eq!(moves(&app), ["B2="]);
}

#[test]
fn the_ai_is_asked_and_its_answer_played() {
    let easy = "easy".parse().unwrap();
    let mut app = App::new(start("tsoro:8"), [Player::Human, Player::Ai(easy)], 0);
    assert!(app.start().is_empty(), "South is human and moves first");
    let effects = press(&mut app, "B2\ns");
    let [Effect::Think { id, position, level }] = effects.as_slice() else { panic!("{effects:?}") };
    assert_eq!(*level, easy);
    assert_eq!(**position, *app.game().position());
    assert!(app.thinking());
    // Keys on the board are ignored while the AI thinks.
    press(&mut app, "b2\n");
    assert_eq!(app.turn().phase(), Phase::Start);
    // A stale answer is ignored; the current one is played.
    let token: Token = "b3=".parse().unwrap();
    assert!(app.ai_done(id + 7, Some(token.clone())).is_empty());
    assert_eq!(app.game().moves().len(), 1);
    assert!(app.ai_done(*id, Some(token)).is_empty());
    assert_eq!(moves(&app), ["B2=", "b3="]);
    assert!(!app.thinking());
}

#[test]
fn undo_against_the_ai_goes_back_to_the_persons_turn() {
    let easy = "easy".parse().unwrap();
    let mut app = App::new(start("tsoro:8"), [Player::Human, Player::Ai(easy)], 0);
    let effects = press(&mut app, "B2\ns");
    let Effect::Think { id, .. } = effects[0].clone() else { panic!() };
    app.ai_done(id, Some("b3=".parse().unwrap()));
    assert_eq!(press(&mut app, "u"), Vec::<Effect>::new());
    assert!(moves(&app).is_empty(), "both turns taken back");
    assert_eq!(app.turn().mover(), Side::South);
    // Undo while the AI thinks cancels the search.
    let effects = press(&mut app, "B2\ns");
    assert!(matches!(effects[0], Effect::Think { .. }));
    assert_eq!(press(&mut app, "u"), [Effect::CancelThink]);
    assert!(moves(&app).is_empty());
    // Redo replays up to the person's turn: B2= and the AI's earlier answer b3=.
    press(&mut app, "r");
    assert_eq!(moves(&app), ["B2=", "b3="]);
    assert_eq!(app.turn().mover(), Side::South);
}

#[test]
fn ai_playing_south_moves_first() {
    let p = "beginner".parse().unwrap();
    let mut app = App::new(start("tsoro:8"), [Player::Ai(p), Player::Human], 0);
    assert!(matches!(app.start().as_slice(), [Effect::Think { .. }]));
}

#[test]
fn quit_save_and_help() {
    let mut app = hotseat("tsoro:8");
    assert_eq!(press(&mut app, "w"), [Effect::Save]);
    press(&mut app, "?");
    assert!(app.help());
    press(&mut app, "x");
    assert!(!app.help(), "any key closes the help");
    assert_eq!(app.key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL)), [Effect::Quit]);
    assert!(app.should_quit());
}

#[test]
fn animation_frames_end_on_the_position_the_core_reaches() {
    // Random turns of several rulesets: the last frame of every turn must equal the
    // position matombo-core computes, and every lap frame must keep the stone count.
    let mut rng = SmallRng::seed_from_u64(7);
    for ruleset in ["tsoro:8", "tsoro:21", "tsoro:6,heads=1,bonus=3", "nsolo:8", "nsolo:12"] {
        let mut pos = start(ruleset);
        for _ in 0..40 {
            if !pos.has_legal_turn() {
                break;
            }
            let mover = pos.side_to_move();
            let mut turn = pos.begin_turn();
            let mut events = Vec::new();
            while !turn.is_complete() {
                assert!(turn.apply_random(&mut rng));
            }
            let token = turn.token().unwrap();
            let mut replay = pos.begin_turn();
            for d in pos.resolve(&token).unwrap() {
                replay.apply_with(d, &mut |e| events.push(e)).unwrap();
            }
            let after = replay.into_position().unwrap();
            let fr = frames(&pos, mover, &events);
            assert!(!fr.is_empty());
            let last = fr.last().unwrap();
            assert_eq!(last.counts[0], after.track(Side::South), "{ruleset} {pos} {token}");
            assert_eq!(last.counts[1], after.track(Side::North), "{ruleset} {pos} {token}");
            for f in fr.iter().filter(|f| f.last.is_some()) {
                let total: u32 = f.counts.iter().flatten().map(|&c| c as u32).sum();
                assert!(total <= pos.total_stones());
                assert!(f.last.unwrap().side == mover);
            }
            pos = after;
        }
    }
}

#[test]
fn animation_plays_and_a_key_skips_it() {
    let mut app = App::new(start("tsoro:8"), [Player::Human, Player::Human], 100);
    press(&mut app, "B2\n");
    // B2 sows 2 to B4 (relay: B4 has 3), then 3 from B4 to the head B7: two laps.
    assert!(app.animating());
    let f = app.frame().unwrap();
    assert_eq!((f.from, f.last), (Some(hole("B2")), Some(hole("B4"))));
    assert_eq!(app.shown_count(hole("B4")), 3);
    assert_eq!(app.cursor(), None, "no cursor while sowing");
    assert!(app.advance());
    assert_eq!(app.frame().unwrap().last, Some(hole("B7")));
    assert!(!app.advance());
    assert!(matches!(app.turn().phase(), Phase::Head(_)));
    // Continue: the relay goes on; a key skips what is left without deciding anything.
    press(&mut app, "c");
    assert!(app.animating());
    press(&mut app, "s");
    assert!(!app.animating());
    assert_eq!(moves(&app), ["B2+"], "the skipping key is not taken as a decision");
}

#[test]
fn the_game_ends_with_its_reason() {
    // North has single stones only, each followed by an occupied hole: after South's
    // turn (B1 sows into B2 and B3 and ends there) North has no legal move (RULES.md §5).
    let p: Position = "tsoro:8 1*8/1*8/0*8/2,0*7 S".parse().unwrap();
    let mut app = App::new(p, [Player::Human, Player::Human], 0);
    press(&mut app, "B1\n");
    let o = app.game().outcome().expect("North cannot move");
    assert_eq!(o.winner, Some(Side::South));
    assert!(app.message().contains("South wins"), "{}", app.message());
    // Undo reopens the game.
    press(&mut app, "u");
    assert!(app.game().outcome().is_none());
    assert!(app.turn().is_legal(Decision::Sow(hole("B1"))));
}

#[test]
fn move_list_uses_rules_notation() {
    let mut app = hotseat("tsoro:8");
    press(&mut app, "B2\n");
    assert_eq!(app.move_list(), ["1. B2.."], "the turn in progress is shown unfinished");
    // B3 then sows 3 to B6 (occupied), relays 4 to A7 (empty, facing the empty a2): done.
    press(&mut app, "sb2\nsB3\n");
    assert_eq!(app.move_list(), ["1. B2=", "b2=", "2. B3"]);
    let r = app.record("2026.11.29").to_string();
    assert!(r.contains("1. B2= b2= 2. B3 *"), "{r}");
    assert!(r.contains("[Date \"2026.11.29\"]"));
    assert!(r.contains("[South \"Human\"]"));
}
