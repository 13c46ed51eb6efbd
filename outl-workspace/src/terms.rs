//! How text becomes search terms, for block texts, page names and queries alike.
//!
//! Words are found at Unicode's word boundaries (UAX #29: `can't`, `3.14` and `e.g` are one
//! word each, `[[a]]` and `a/b` two), lowercased, and reduced to their Snowball stem in the
//! graph's [`Language`], so that `query`, `queries` and `Queries` are one term.
//!
//! Han, Hiragana, Katakana and Hangul are written without spaces between words, so a word of
//! theirs cannot be told from the run around it. A run of them is cut into overlapping grams
//! of two characters instead (`跨域请求` is `跨域`, `域请`, `请求`): any two consecutive
//! characters of the run are a term, and a longer query run is its grams one after the other,
//! which the text is checked for (see [`Span::joined`]). A run of one character is a term of
//! its own.

use std::borrow::Cow;

use rust_stemmers::{Algorithm, Stemmer};
use unicode_segmentation::UnicodeSegmentation;

use super::codec::{Corrupt, Decoder, Encoder, Persist};

/// The Snowball stemmers: ISO 639-1 code, English name, algorithm.
const LANGUAGES: &[(&str, &str, Algorithm)] = &[
    ("ar", "arabic", Algorithm::Arabic),
    ("da", "danish", Algorithm::Danish),
    ("nl", "dutch", Algorithm::Dutch),
    ("en", "english", Algorithm::English),
    ("fi", "finnish", Algorithm::Finnish),
    ("fr", "french", Algorithm::French),
    ("de", "german", Algorithm::German),
    ("el", "greek", Algorithm::Greek),
    ("hu", "hungarian", Algorithm::Hungarian),
    ("it", "italian", Algorithm::Italian),
    ("no", "norwegian", Algorithm::Norwegian),
    ("pt", "portuguese", Algorithm::Portuguese),
    ("ro", "romanian", Algorithm::Romanian),
    ("ru", "russian", Algorithm::Russian),
    ("es", "spanish", Algorithm::Spanish),
    ("sv", "swedish", Algorithm::Swedish),
    ("ta", "tamil", Algorithm::Tamil),
    ("tr", "turkish", Algorithm::Turkish),
];

/// The language whose stemmer reduces a graph's words, or none (words are only lowercased).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Language(Option<u8>);

impl Default for Language {
    fn default() -> Self {
        Language::ENGLISH
    }
}

impl Language {
    pub const ENGLISH: Language = Language(Some(3));
    /// Words are matched as they are written, case aside.
    pub const NONE: Language = Language(None);

    fn entry(self) -> Option<&'static (&'static str, &'static str, Algorithm)> {
        LANGUAGES.get(usize::from(self.0?))
    }

    /// A number that stands for it in the cache.
    fn code(self) -> u8 {
        self.0.map_or(u8::MAX, |at| at)
    }

    fn of_code(code: u8) -> Option<Language> {
        match code {
            u8::MAX => Some(Language::NONE),
            at if usize::from(at) < LANGUAGES.len() => Some(Language(Some(at))),
            _ => None,
        }
    }
}

impl Persist for Language {
    fn put(&self, out: &mut Encoder) {
        self.code().put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        Language::of_code(u8::take(input)?).ok_or(Corrupt)
    }
}

/// A token of a text: a word, or a gram of a run of Han, Hiragana, Katakana or Hangul.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Span {
    /// Its bytes in the text.
    pub start: usize,
    pub end: usize,
    pub gram: bool,
    /// A gram that continues the one before it in the same run (its first character is the
    /// other's second): a query run longer than two characters matches where its grams follow
    /// each other joined.
    pub joined: bool,
}

/// Whether a character is written in a script without spaces between words (or, for Hangul,
/// with particles joined to the word), so that its runs are cut into grams.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{1100}'..='\u{11FF}' // Hangul Jamo
        | '\u{2E80}'..='\u{2FDF}' // CJK and Kangxi radicals
        | '\u{3005}'..='\u{3007}' // 々 〆 〇
        | '\u{3021}'..='\u{3029}' // Hangzhou numerals
        | '\u{3031}'..='\u{3035}' // Kana repeat marks
        | '\u{3040}'..='\u{30FF}' // Hiragana, Katakana
        | '\u{3130}'..='\u{318F}' // Hangul compatibility Jamo
        | '\u{31F0}'..='\u{31FF}' // Katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{A960}'..='\u{A97F}' // Hangul Jamo extended A
        | '\u{AC00}'..='\u{D7FF}' // Hangul syllables, Jamo extended B
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // halfwidth Katakana
        | '\u{FFA0}'..='\u{FFDC}' // halfwidth Hangul
        | '\u{20000}'..='\u{3FFFF}' // CJK extensions B and later
    )
}

/// The character of a term that is one Han, kana or Hangul character alone: a query term
/// that grams holding it stand for too.
pub(super) fn lone_char(term: &str) -> Option<char> {
    let mut chars = term.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) if is_cjk(c) => Some(c),
        _ => None,
    }
}

/// Whether a term is a gram of a run of Han, kana or Hangul (or such a character alone).
pub(super) fn is_gram(term: &str) -> bool {
    term.chars().next().is_some_and(is_cjk)
}

/// Calls `f` with each token of `text`, in order.
pub(super) fn spans(text: &str, mut f: impl FnMut(Span)) {
    // The run of grams being gathered, as a byte range; emitted once something else comes.
    let mut run: Option<(usize, usize)> = None;
    let mut part = |start: usize, end: usize, cjk: bool, run: &mut Option<(usize, usize)>| {
        if cjk {
            match run {
                Some((_, run_end)) if *run_end == start => *run_end = end,
                _ => {
                    if let Some((a, b)) = run.replace((start, end)) {
                        grams(text, a, b, &mut f);
                    }
                }
            }
        } else if text[start..end].chars().any(char::is_alphanumeric) {
            if let Some((a, b)) = run.take() {
                grams(text, a, b, &mut f);
            }
            f(Span {
                start,
                end,
                gram: false,
                joined: false,
            });
        }
    };
    for (start, segment) in text.split_word_bound_indices() {
        if segment.is_ascii() {
            let bytes = segment.as_bytes();
            if bytes.iter().any(u8::is_ascii_alphanumeric) {
                part(start, start + bytes.len(), false, &mut run);
            }
            continue;
        }
        // A segment may mix scripts (`3학년`): its runs of one kind are parts of their own.
        let mut from = start;
        let mut kind = None;
        for (i, c) in segment.char_indices() {
            let cjk = is_cjk(c);
            match kind {
                Some(k) if k != cjk => {
                    part(from, start + i, k, &mut run);
                    from = start + i;
                }
                _ => {}
            }
            kind = Some(cjk);
        }
        if let Some(k) = kind {
            part(from, start + segment.len(), k, &mut run);
        }
    }
    if let Some((a, b)) = run {
        grams(text, a, b, &mut f);
    }
}

/// The grams of the run `text[start..end]`: each two consecutive characters, or the one
/// character of a run of one.
fn grams(text: &str, start: usize, end: usize, f: &mut impl FnMut(Span)) {
    let mut bounds = text[start..end]
        .char_indices()
        .map(|(i, _)| start + i)
        .chain(std::iter::once(end));
    let (Some(mut a), Some(mut b)) = (bounds.next(), bounds.next()) else {
        return;
    };
    let Some(mut c) = bounds.next() else {
        f(Span {
            start: a,
            end: b,
            gram: true,
            joined: false,
        });
        return;
    };
    let mut joined = false;
    loop {
        f(Span {
            start: a,
            end: c,
            gram: true,
            joined,
        });
        joined = true;
        (a, b) = (b, c);
        match bounds.next() {
            Some(next) => c = next,
            None => return,
        }
    }
}

fn has_uppercase(token: &str) -> bool {
    if token.is_ascii() {
        token.bytes().any(|b| b.is_ascii_uppercase())
    } else {
        token.chars().any(char::is_uppercase)
    }
}

/// A token lowercased (as `str::to_lowercase` does: a final sigma is the one `char` does not
/// give), borrowed when it is lowercase already, as most are.
pub(super) fn lowercase(token: &str) -> Cow<'_, str> {
    if !has_uppercase(token) {
        Cow::Borrowed(token)
    } else if token.is_ascii() {
        Cow::Owned(token.to_ascii_lowercase())
    } else {
        Cow::Owned(token.to_lowercase())
    }
}

/// Turns tokens into terms: words lowercased and stemmed, grams as they are.
pub(super) struct Analyzer {
    stemmer: Option<Stemmer>,
}

impl Analyzer {
    pub fn new(language: Language) -> Analyzer {
        Analyzer {
            stemmer: language
                .entry()
                .map(|&(_, _, algorithm)| Stemmer::create(algorithm)),
        }
    }

    /// The term of the token `text[span]`.
    pub fn term<'t>(&self, text: &'t str, span: Span) -> Cow<'t, str> {
        let token = &text[span.start..span.end];
        if span.gram {
            return lowercase(token);
        }
        let lowered = lowercase(token);
        match &self.stemmer {
            None => lowered,
            Some(stemmer) => match lowered {
                Cow::Borrowed(word) => stemmer.stem(word),
                Cow::Owned(word) => Cow::Owned(stemmer.stem(&word).into_owned()),
            },
        }
    }

    /// Calls `f` with the term of each token of `text`, in order.
    pub fn for_each_term(&self, text: &str, mut f: impl FnMut(&str)) {
        spans(text, |span| f(&self.term(text, span)));
    }

    /// The terms of `text`, in order.
    pub fn terms(&self, text: &str) -> Vec<String> {
        let mut terms = Vec::new();
        self.for_each_term(text, |term| terms.push(term.to_owned()));
        terms
    }
}

/// A token as written, lowercased: what a quoted phrase is matched on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Surface<'t> {
    pub text: Cow<'t, str>,
    pub joined: bool,
}

/// The tokens of `text` as written, lowercased, in order.
pub(super) fn surfaces(text: &str) -> Vec<Surface<'_>> {
    let mut out = Vec::new();
    spans(text, |span| {
        out.push(Surface {
            text: lowercase(&text[span.start..span.end]),
            joined: span.joined,
        });
    });
    out
}

/// Whether `phrase` is in `tokens`: its tokens one after the other, each one after the
/// first joined to the one before exactly when it is in the phrase (the first may start
/// inside a run).
pub(super) fn holds_phrase(tokens: &[Surface<'_>], phrase: &[Surface<'_>]) -> bool {
    !phrase.is_empty()
        && tokens.windows(phrase.len()).any(|window| {
            window
                .iter()
                .zip(phrase)
                .enumerate()
                .all(|(i, (a, b))| a.text == b.text && (i == 0 || a.joined == b.joined))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<&str> {
        let mut out = Vec::new();
        spans(text, |span| out.push(&text[span.start..span.end]));
        out
    }

    #[test]
    fn words_follow_unicode_word_boundaries() {
        assert_eq!(
            tokens("Don't split 3.14, e.g. [[Page one]] a/b #tag x_y"),
            [
                "Don't", "split", "3.14", "e.g", "Page", "one", "a", "b", "tag", "x_y"
            ]
        );
        assert_eq!(
            tokens("Naïve ΣΟΦΟΣ café-au-lait"),
            ["Naïve", "ΣΟΦΟΣ", "café", "au", "lait"]
        );
    }

    #[test]
    fn runs_of_cjk_are_cut_into_grams_of_two() {
        assert_eq!(tokens("跨域请求"), ["跨域", "域请", "请求"]);
        // Punctuation and spaces end a run; a run of one is one token.
        assert_eq!(tokens("跨域，请求 好"), ["跨域", "请求", "好"]);
        // Japanese mixes scripts in one run; Katakana and Hangul are runs too.
        assert_eq!(tokens("東京に行く"), ["東京", "京に", "に行", "行く"]);
        assert_eq!(
            tokens("データベース"),
            ["デー", "ータ", "タベ", "ベー", "ース"]
        );
        assert_eq!(tokens("학교에서 공부"), ["학교", "교에", "에서", "공부"]);
        // Latin words and numbers beside a run are words of their own.
        assert_eq!(tokens("用Rust写3학년"), ["用", "Rust", "写", "3", "학년"]);
    }

    #[test]
    fn a_gram_says_whether_it_continues_the_one_before() {
        let mut joined = Vec::new();
        spans("跨域请 求", |span| joined.push(span.joined));
        assert_eq!(joined, [false, true, false]);
    }

    #[test]
    fn words_are_lowercased_and_stemmed_in_the_language() {
        let english = Analyzer::new(Language::ENGLISH);
        assert_eq!(
            english.terms("Queries query QUERYING ΣΟΦΟΣ 跨域"),
            ["queri", "queri", "queri", "σοφος", "跨域"]
        );
        let none = Analyzer::new(Language::NONE);
        assert_eq!(none.terms("Queries query"), ["queries", "query"]);
        let german = Analyzer::new(Language(Some(6)));
        assert_eq!(german.terms("Häuser Haus"), ["haus", "haus"]);
    }

    #[test]
    fn a_phrase_is_found_where_its_tokens_follow_each_other() {
        let text = surfaces("We ran 跨域请求 twice, then 域请");
        let holds = |phrase: &str| holds_phrase(&text, &surfaces(phrase));
        assert!(holds("ran 跨域"));
        assert!(holds("域请求"));
        assert!(holds("twice then"));
        assert!(!holds("then twice"));
        // Two runs apart are not one run.
        assert!(!holds("跨域 请求"));
        assert!(!holds("域请求 tw"));
    }
}
