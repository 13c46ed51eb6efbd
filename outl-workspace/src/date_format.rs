//! Date patterns in the notation Logseq's config uses (`MMM do, yyyy`, `yyyy_MM_dd`, date-fns
//! style), read both ways: a day written out as a journal title or file name, and a title
//! read back as the day it names.
//!
//! Tokens, a run of one letter (English names, as Logseq writes them):
//!
//! | token | gives | token | gives |
//! | --- | --- | --- | --- |
//! | `y`, `u` | `2021` (unpadded) | `yy` | `21` |
//! | `yyy` | `2021` (3 digits at least) | `yyyy` | `2021` (4 at least) |
//! | `yo` | `2021st` | `Y…`, `u…` | as `y…`: the calendar year |
//! | `M`, `L` | `2` | `MM`, `LL` | `02` |
//! | `Mo`, `Lo` | `2nd` | `MMM`, `LLL` | `Feb` |
//! | `MMMM`, `LLLL` | `February` | `MMMMM`, `LLLLL` | `F` |
//! | `d` | `6` | `dd` | `06` |
//! | `do` | `6th` | `Q`, `QQ`, `Qo`, `QQQ`, `QQQQ` | `1`, `01`, `1st`, `Q1`, `1st quarter` |
//! | `E`, `EE`, `EEE` | `Sat` | `EEEE` | `Saturday` |
//! | `EEEEE` | `S` | `EEEEEE` | `Sa` |
//!
//! `'text'` is literal text (`''` a single quote, inside or outside), and so is every
//! character that is not an ASCII letter. Any other letter, and a pattern without a year, a
//! month and a day of the month, is refused: such a pattern cannot name a day.
//!
//! Reading is case-insensitive (Logseq capitalizes a title's words before it reads it) and
//! must take the whole text. A number reads as many digits as there are (up to 2, or 4 for a
//! year), so `MM` reads `2` as well as `02`, unless another number follows with nothing
//! between them, where it reads exactly its width (`yyyyMMdd`; a year 4 digits). An ordinal takes any English suffix (`1th` reads as the 1st), a
//! name of a day of the week must be a real one but need not agree with the date (Logseq does
//! not check it either), and `yy` is a year of this century.

use chrono::{Datelike, NaiveDate, Weekday};

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

const WEEKDAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

const ORDINAL_SUFFIXES: [&str; 4] = ["st", "nd", "rd", "th"];

/// A date pattern, read once: formats days and parses titles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DateFormat {
    pattern: String,
    parts: Vec<Part>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Field(Field),
}

/// One token of a pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    /// A number padded to `width` digits.
    Year {
        width: usize,
    },
    YearOrdinal,
    /// The last two digits of the year.
    ShortYear,
    Month {
        width: usize,
    },
    MonthOrdinal,
    MonthName(NameWidth),
    Day {
        width: usize,
    },
    DayOrdinal,
    Quarter {
        width: usize,
    },
    QuarterOrdinal,
    /// `Q1`.
    QuarterShort,
    /// `1st quarter`.
    QuarterLong,
    Weekday(NameWidth),
}

/// How much of a month's or a day's name is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum NameWidth {
    /// `Feb`, `Sat`.
    Short,
    /// `February`, `Saturday`.
    Full,
    /// `F`, `S`.
    Letter,
    /// `Sa` (days only).
    Two,
}

impl Field {
    fn is_number(self) -> bool {
        matches!(
            self,
            Field::Year { .. }
                | Field::ShortYear
                | Field::Month { .. }
                | Field::Day { .. }
                | Field::Quarter { .. }
        )
    }
}

/// Why a pattern cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPattern(pub String);

impl std::fmt::Display for BadPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl DateFormat {
    /// Reads a pattern; refuses one with an unknown letter, an open quote, or without a year,
    /// a month and a day.
    pub fn new(pattern: &str) -> Result<DateFormat, BadPattern> {
        let parts = tokenize(pattern)?;
        let has = |f: fn(&Field) -> bool| {
            parts
                .iter()
                .any(|part| matches!(part, Part::Field(field) if f(field)))
        };
        let year = has(|f| {
            matches!(
                f,
                Field::Year { .. } | Field::YearOrdinal | Field::ShortYear
            )
        });
        let month = has(|f| {
            matches!(
                f,
                Field::Month { .. } | Field::MonthOrdinal | Field::MonthName(_)
            )
        });
        let day = has(|f| matches!(f, Field::Day { .. } | Field::DayOrdinal));
        if !(year && month && day) {
            return Err(BadPattern(format!(
                "the date pattern {pattern:?} does not name a day: it needs a year, a month \
                 and a day of the month"
            )));
        }
        Ok(DateFormat {
            pattern: pattern.to_string(),
            parts,
        })
    }

    /// The pattern as written.
    pub fn pattern(&self) -> &str {
        &self.pattern
    }

    /// The day written in this pattern.
    pub fn format(&self, date: NaiveDate) -> String {
        let mut out = String::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Field(field) => format_field(*field, date, &mut out),
            }
        }
        out
    }

    /// The day a text in this pattern names, if it is one.
    pub fn parse(&self, text: &str) -> Option<NaiveDate> {
        let mut rest = text;
        let (mut year, mut month, mut day, mut quarter) = (None, None, None, None);
        for (i, part) in self.parts.iter().enumerate() {
            match part {
                Part::Literal(literal) => rest = strip_prefix_ignore_case(rest, literal)?,
                Part::Field(field) => {
                    let next_is_number = matches!(
                        self.parts.get(i + 1),
                        Some(Part::Field(next)) if next.is_number()
                    );
                    let (value, after) = parse_field(*field, rest, next_is_number)?;
                    rest = after;
                    let slot = match field {
                        Field::Year { .. } | Field::YearOrdinal | Field::ShortYear => &mut year,
                        Field::Month { .. } | Field::MonthOrdinal | Field::MonthName(_) => {
                            &mut month
                        }
                        Field::Day { .. } | Field::DayOrdinal => &mut day,
                        Field::Quarter { .. }
                        | Field::QuarterOrdinal
                        | Field::QuarterShort
                        | Field::QuarterLong => &mut quarter,
                        Field::Weekday(_) => continue,
                    };
                    if slot.is_some_and(|known| known != value) {
                        return None;
                    }
                    *slot = Some(value);
                }
            }
        }
        if !rest.is_empty() {
            return None;
        }
        let date = NaiveDate::from_ymd_opt(
            year?,
            u32::try_from(month?).ok()?,
            u32::try_from(day?).ok()?,
        )?;
        match quarter {
            Some(q) if q != quarter_of(date) => None,
            _ => Some(date),
        }
    }
}

fn tokenize(pattern: &str) -> Result<Vec<Part>, BadPattern> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut parts = Vec::new();
    let mut literal = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            if chars.get(i + 1) == Some(&'\'') {
                literal.push('\'');
                i += 2;
                continue;
            }
            let mut j = i + 1;
            loop {
                match chars.get(j) {
                    None => {
                        return Err(BadPattern(format!(
                            "the date pattern {pattern:?} has a quote that is never closed"
                        )));
                    }
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        literal.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(&other) => {
                        literal.push(other);
                        j += 1;
                    }
                }
            }
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            literal.push(c);
            i += 1;
            continue;
        }
        let run = chars[i..].iter().take_while(|&&d| d == c).count();
        let ordinal = chars.get(i + run) == Some(&'o');
        let field = field_of(c, run, ordinal).ok_or_else(|| {
            let token: String = std::iter::repeat_n(c, run)
                .chain(ordinal.then_some('o'))
                .collect();
            BadPattern(format!(
                "the date pattern {pattern:?} has {token:?}, which is not a token of a day \
                 (quote literal letters: 'at')"
            ))
        })?;
        if !literal.is_empty() {
            parts.push(Part::Literal(std::mem::take(&mut literal)));
        }
        parts.push(Part::Field(field));
        i += run + usize::from(ordinal);
    }
    if !literal.is_empty() {
        parts.push(Part::Literal(literal));
    }
    Ok(parts)
}

fn field_of(letter: char, run: usize, ordinal: bool) -> Option<Field> {
    use NameWidth::*;
    Some(match (letter, run, ordinal) {
        ('y' | 'Y' | 'u', 1, true) => Field::YearOrdinal,
        ('y' | 'Y', 2, false) => Field::ShortYear,
        ('y' | 'Y' | 'u', width, false) if width != 2 => Field::Year { width },
        ('u', 2, false) => Field::Year { width: 2 },
        ('M' | 'L', 1, true) => Field::MonthOrdinal,
        ('M' | 'L', 1 | 2, false) => Field::Month { width: run },
        ('M' | 'L', 3, false) => Field::MonthName(Short),
        ('M' | 'L', 4, false) => Field::MonthName(Full),
        ('M' | 'L', 5, false) => Field::MonthName(Letter),
        ('d', 1, true) => Field::DayOrdinal,
        ('d', 1 | 2, false) => Field::Day { width: run },
        ('Q' | 'q', 1, true) => Field::QuarterOrdinal,
        ('Q' | 'q', 1 | 2, false) => Field::Quarter { width: run },
        ('Q' | 'q', 3, false) => Field::QuarterShort,
        ('Q' | 'q', 4, false) => Field::QuarterLong,
        ('E', 1..=3, false) => Field::Weekday(Short),
        ('E', 4, false) => Field::Weekday(Full),
        ('E', 5, false) => Field::Weekday(Letter),
        ('E', 6, false) => Field::Weekday(Two),
        _ => return None,
    })
}

fn quarter_of(date: NaiveDate) -> i32 {
    (date.month0() / 3 + 1) as i32
}

fn ordinal_suffix(n: i32) -> &'static str {
    match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    }
}

fn named(name: &str, width: NameWidth) -> &str {
    match width {
        NameWidth::Full => name,
        NameWidth::Short => &name[..3],
        NameWidth::Two => &name[..2],
        NameWidth::Letter => &name[..1],
    }
}

fn weekday_index(day: Weekday) -> usize {
    day.num_days_from_monday() as usize
}

fn format_field(field: Field, date: NaiveDate, out: &mut String) {
    use std::fmt::Write;
    let month = date.month() as i32;
    let _ = match field {
        Field::Year { width } => write!(out, "{:0width$}", date.year()),
        Field::YearOrdinal => write!(out, "{}{}", date.year(), ordinal_suffix(date.year())),
        Field::ShortYear => write!(out, "{:02}", date.year().rem_euclid(100)),
        Field::Month { width } => write!(out, "{month:0width$}"),
        Field::MonthOrdinal => write!(out, "{month}{}", ordinal_suffix(month)),
        Field::MonthName(width) => write!(out, "{}", named(MONTHS[date.month0() as usize], width)),
        Field::Day { width } => write!(out, "{:0width$}", date.day()),
        Field::DayOrdinal => write!(out, "{}{}", date.day(), ordinal_suffix(date.day() as i32)),
        Field::Quarter { width } => write!(out, "{:0width$}", quarter_of(date)),
        Field::QuarterOrdinal => {
            let q = quarter_of(date);
            write!(out, "{q}{}", ordinal_suffix(q))
        }
        Field::QuarterShort => write!(out, "Q{}", quarter_of(date)),
        Field::QuarterLong => {
            let q = quarter_of(date);
            write!(out, "{q}{} quarter", ordinal_suffix(q))
        }
        Field::Weekday(width) => {
            write!(
                out,
                "{}",
                named(WEEKDAYS[weekday_index(date.weekday())], width)
            )
        }
    };
}

/// The value of one field at the start of `text`, and the rest of the text.
fn parse_field(field: Field, text: &str, next_is_number: bool) -> Option<(i32, &str)> {
    // `width` digits exactly before another number, else as many as there are, up to `max`.
    let digits = |width: usize, max: usize| -> Option<(i32, &str)> {
        let available = text.bytes().take_while(u8::is_ascii_digit).count();
        let take = if next_is_number {
            width
        } else {
            available.min(max)
        };
        if take == 0 || take > available {
            return None;
        }
        Some((text[..take].parse().ok()?, &text[take..]))
    };
    fn with_suffix((n, rest): (i32, &str)) -> Option<(i32, &str)> {
        ORDINAL_SUFFIXES
            .iter()
            .find_map(|suffix| strip_prefix_ignore_case(rest, suffix))
            .map(|rest| (n, rest))
    }
    match field {
        Field::Year { width } => digits(width.max(4), width.max(4)),
        Field::YearOrdinal => with_suffix(digits(1, 4)?),
        Field::ShortYear => digits(2, 2).map(|(n, rest)| (2000 + n, rest)),
        Field::Month { width } | Field::Day { width } | Field::Quarter { width } => {
            digits(width, 2)
        }
        Field::MonthOrdinal | Field::DayOrdinal | Field::QuarterOrdinal => {
            with_suffix(digits(1, 2)?)
        }
        Field::QuarterShort => {
            let rest = strip_prefix_ignore_case(text, "Q")?;
            let q = rest.chars().next()?.to_digit(10)?;
            Some((q as i32, &rest[1..]))
        }
        Field::QuarterLong => {
            let (q, rest) = with_suffix(digits(1, 1)?)?;
            Some((q, strip_prefix_ignore_case(rest, " quarter")?))
        }
        Field::MonthName(width) => {
            name_at(text, &MONTHS, width).map(|(i, rest)| (i as i32 + 1, rest))
        }
        Field::Weekday(width) => name_at(text, &WEEKDAYS, width).map(|(i, rest)| (i as i32, rest)),
    }
}

/// Which of `names`, cut to `width`, `text` starts with (the longest when several do), and
/// the rest of the text.
fn name_at<'t>(text: &'t str, names: &[&str], width: NameWidth) -> Option<(usize, &'t str)> {
    names
        .iter()
        .enumerate()
        .filter_map(|(i, name)| Some((i, strip_prefix_ignore_case(text, named(name, width))?)))
        .min_by_key(|(_, rest)| rest.len())
}

/// `text` without `prefix`, compared case-insensitively.
fn strip_prefix_ignore_case<'t>(text: &'t str, prefix: &str) -> Option<&'t str> {
    let mut rest = text;
    for expected in prefix.chars() {
        let mut chars = rest.chars();
        let got = chars.next()?;
        if got != expected && !got.to_lowercase().eq(expected.to_lowercase()) {
            return None;
        }
        rest = chars.as_str();
    }
    Some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn day(y: i32, m: u32, d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, d).unwrap()
    }

    fn format(pattern: &str, date: NaiveDate) -> String {
        DateFormat::new(pattern).unwrap().format(date)
    }

    fn parse(pattern: &str, text: &str) -> Option<NaiveDate> {
        DateFormat::new(pattern).unwrap().parse(text)
    }

    /// The patterns Logseq's settings offer for journal titles, and its file name default.
    const LOGSEQ_PATTERNS: &[&str] = &[
        "MMM do, yyyy",
        "do MMM yyyy",
        "do MMMM yyyy",
        "MMMM do, yyyy",
        "E, dd-MM-yyyy",
        "E, dd.MM.yyyy",
        "E, MM/dd/yyyy",
        "E, yyyy/MM/dd",
        "EEE, dd-MM-yyyy",
        "EEE, dd.MM.yyyy",
        "EEE, MM/dd/yyyy",
        "EEE, yyyy/MM/dd",
        "EEEE, dd-MM-yyyy",
        "EEEE, dd.MM.yyyy",
        "EEEE, MM/dd/yyyy",
        "EEEE, yyyy/MM/dd",
        "dd-MM-yyyy",
        "MM/dd/yyyy",
        "MM-dd-yyyy",
        "MM_dd_yyyy",
        "yyyy/MM/dd",
        "yyyy-MM-dd",
        "yyyy-MM-dd EEEE",
        "yyyy_MM_dd",
        "yyyyMMdd",
        "yyyy年MM月dd日",
        "EEE do, MMM yyyy",
    ];

    #[test]
    fn days_are_written_in_each_token() {
        let d = day(2021, 2, 26);
        assert_eq!(format("MMM do, yyyy", d), "Feb 26th, 2021");
        assert_eq!(format("yyyy_MM_dd", d), "2021_02_26");
        assert_eq!(format("EEEE, MMMM d, yy", d), "Friday, February 26, 21");
        assert_eq!(
            format("EEE do, MMM yyyy", day(2021, 3, 1)),
            "Mon 1st, Mar 2021"
        );
        assert_eq!(
            format("E EE EEEEE EEEEEE yyyy-MM-dd", d),
            "Fri Fri F Fr 2021-02-26"
        );
        assert_eq!(
            format("M Mo MMMMM L LL LLL LLLL y d", d),
            "2 2nd F 2 02 Feb February 2021 26"
        );
        assert_eq!(
            format("y yo yyy u M d", day(2021, 1, 2)),
            "2021 2021st 2021 2021 1 2"
        );
        assert_eq!(
            format("Q QQ Qo QQQ QQQQ yyyy-MM-dd", d),
            "1 01 1st Q1 1st quarter 2021-02-26"
        );
        assert_eq!(format("'week of' d MMM yyyy", d), "week of 26 Feb 2021");
        assert_eq!(format("d 'o''clock' '' MM yyyy", d), "26 o'clock ' 02 2021");
        assert_eq!(format("yyyy年MM月dd日", d), "2021年02月26日");
        assert_eq!(format("YYYY-MM-dd", d), "2021-02-26");
        assert_eq!(format("do MMM yyyy", day(2021, 1, 11)), "11th Jan 2021");
        assert_eq!(format("do MMM yyyy", day(2021, 1, 22)), "22nd Jan 2021");
        assert_eq!(format("do MMM yyyy", day(2021, 1, 23)), "23rd Jan 2021");
        assert_eq!(format("do MMM yyyy", day(2021, 1, 31)), "31st Jan 2021");
        assert_eq!(format("yyyy-MM-dd", day(800, 1, 1)), "0800-01-01");
    }

    #[test]
    fn titles_read_back_as_their_day() {
        let d = day(2021, 2, 26);
        assert_eq!(parse("MMM do, yyyy", "Feb 26th, 2021"), Some(d));
        assert_eq!(parse("MMM do, yyyy", "feb 26TH, 2021"), Some(d));
        assert_eq!(
            parse("MMM do, yyyy", "Feb 26st, 2021"),
            Some(d),
            "any suffix"
        );
        assert_eq!(
            parse("MMM do, yyyy", "Feb 2nd, 2021"),
            Some(day(2021, 2, 2))
        );
        assert_eq!(parse("yyyyMMdd", "20210226"), Some(d));
        assert_eq!(parse("yyyy-MM-dd", "2021-2-6"), Some(day(2021, 2, 6)));
        assert_eq!(parse("MMMM d, yyyy", "February 26, 2021"), Some(d));
        assert_eq!(
            parse("EEEE, dd.MM.yyyy", "Monday, 26.02.2021"),
            Some(d),
            "weekday not checked"
        );
        assert_eq!(parse("EEE, dd.MM.yyyy", "Xyz, 26.02.2021"), None);
        assert_eq!(parse("d MMM yy", "26 Feb 21"), Some(d));
        assert_eq!(parse("QQQ yyyy-MM-dd", "Q1 2021-02-26"), Some(d));
        assert_eq!(parse("QQQ yyyy-MM-dd", "Q2 2021-02-26"), None);
    }

    #[test]
    fn texts_that_are_not_days_are_refused() {
        for (pattern, text) in [
            ("MMM do, yyyy", "Feb 30th, 2021"),
            ("MMM do, yyyy", "Feb 26th, 2021 and more"),
            ("MMM do, yyyy", "Feb 26, 2021"),
            ("MMM do, yyyy", "February 26th, 2021"),
            ("MMM do, yyyy", "Project X"),
            ("MMM do, yyyy", ""),
            ("yyyy-MM-dd", "2021-13-01"),
            ("yyyy-MM-dd", "2021-02"),
            ("yyyy_MM_dd", "2021-02-26"),
            ("dd.MM.yyyy", "2021Q4"),
        ] {
            assert_eq!(parse(pattern, text), None, "{pattern:?} {text:?}");
        }
    }

    #[test]
    fn patterns_that_cannot_name_a_day_are_refused() {
        for pattern in [
            "MMM yyyy",
            "yyyy-MM-dd HH:mm",
            "do 'of' MMM",
            "'open",
            "EEEE",
            "yyyy-ww",
        ] {
            assert!(DateFormat::new(pattern).is_err(), "{pattern:?}");
        }
        assert_eq!(
            DateFormat::new("MMM do, yyyy").unwrap().pattern(),
            "MMM do, yyyy"
        );
    }

    proptest! {
        #[test]
        fn every_logseq_pattern_reads_back_the_day_it_wrote(
            days in 0i64..(400 * 366),
            which in 0..LOGSEQ_PATTERNS.len(),
        ) {
            let date = day(1800, 1, 1) + chrono::Duration::days(days);
            let format = DateFormat::new(LOGSEQ_PATTERNS[which]).unwrap();
            let text = format.format(date);
            prop_assert_eq!(format.parse(&text), Some(date), "{}", text);
            prop_assert_eq!(format.parse(&text.to_lowercase()), Some(date));
        }

        #[test]
        fn any_text_parses_without_panicking(text in "\\PC{0,24}", which in 0..LOGSEQ_PATTERNS.len()) {
            let format = DateFormat::new(LOGSEQ_PATTERNS[which]).unwrap();
            if let Some(date) = format.parse(&text) {
                prop_assert!(date.year() >= 0);
            }
        }
    }
}
