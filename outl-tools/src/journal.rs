//! Journal days: today's, a given day's, the list of days, and appending to a day.
//!
//! "Today" is the local date, or `OUTL_TODAY` (`YYYY-MM-DD`) when set, so tests and scripts
//! can pin it.

use chrono::NaiveDate;
use outl_macros::{ToolFields, tool};
use outl_registry::{Problem, invalid_arguments};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::outline::{self, OutlineNode, PageMeta, stored_markdown};
use super::pages;
use super::paging;
use super::slices::{self, Cut, Window};
use super::wire_len;
use crate::MAX_MARKDOWN_CHARS;
use outl_format::Syntax;
use outl_workspace::{BlockList, Graph, OpKind, Page, Workspace};
use outl_workspace::{Error, ErrorCode};

/// The environment variable that overrides today's date.
pub const TODAY_VAR: &str = "OUTL_TODAY";

/// Journal days a `PAGE_NOT_FOUND` for a day suggests.
const NEARBY_DAYS: usize = 5;

/// Which slice of today's journal to read.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct TodayArgs {
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    #[schemars(range(min = 1))]
    pub budget: Option<u32>,
}

/// A journal day, and which slice of it to read.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct DayArgs {
    /// `YYYY-MM-DD`.
    pub date: String,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
    #[schemars(range(min = 1))]
    pub budget: Option<u32>,
}

/// Which journal days to list.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct DailyListArgs {
    /// The first day, `YYYY-MM-DD`.
    pub from: Option<String>,
    /// The last day, `YYYY-MM-DD`.
    pub to: Option<String>,
    #[schemars(range(min = 1))]
    pub limit: Option<u32>,
    pub cursor: Option<String>,
}

/// Markdown for a journal day.
#[derive(Debug, Deserialize, Serialize, JsonSchema, ToolFields)]
#[serde(deny_unknown_fields)]
pub struct DailyAppendArgs {
    #[schemars(length(max = MAX_MARKDOWN_CHARS))]
    pub md: String,
    /// `YYYY-MM-DD`; today when left out.
    pub date: Option<String>,
}

/// A journal day in full, or a slice of it.
#[derive(Debug, Serialize)]
pub struct DailyPage {
    /// The day, `YYYY-MM-DD`.
    pub date: String,
    pub meta: PageMeta,
    /// The blocks with their ids: what block tools take.
    pub outline: Vec<OutlineNode>,
    /// The page's markdown as stored (of the slice's blocks).
    pub md: String,
    /// Where the next slice starts, when this one was cut short.
    #[serde(flatten)]
    pub cut: Option<Cut>,
}

/// One journal day of a list.
#[derive(Debug, Serialize)]
pub struct DaySummary {
    pub date: String,
    /// Blocks on the day, nested ones included.
    pub blocks: usize,
    /// Tasks not done nor canceled (TODO, DOING, NOW, LATER, WAITING).
    pub open_tasks: usize,
}

#[derive(Debug, Serialize)]
pub struct DailyList {
    /// Newest first.
    pub days: Vec<DaySummary>,
    pub total: usize,
    /// Pass as `cursor` for the rest; absent when this is the end.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

#[derive(Debug, Serialize)]
pub struct DailyWritten {
    /// The day written to, `YYYY-MM-DD`.
    pub date: String,
    /// The new blocks.
    #[serde(flatten)]
    pub blocks: pages::WrittenIds,
}

/// Today's journal day as outl_daily_get reads one, created if missing.
#[tool(idempotent, payload = json)]
pub fn outl_daily_today(ws: &Workspace, args: TodayArgs) -> Result<DailyPage, Error> {
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let page = ws.ensure_journal(today()?)?;
    daily_page(ws, &page, window)
}

/// A journal day: its date, meta, outline with block ids, and markdown as stored.
/// PAGE_NOT_FOUND names the nearest days.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_daily_get(ws: &Workspace, args: DayArgs) -> Result<DailyPage, Error> {
    let date = parse_date(&args.date, "/date")?;
    let window = Window::of(args.limit, args.cursor.as_deref(), args.budget)?;
    let page = {
        let graph = ws.snapshot();
        journal(&graph, date)?.clone()
    };
    daily_page(ws, &page, window)
}

/// Journal days, newest first, each with its number of blocks and of open tasks.
#[tool(read_only, idempotent, payload = json)]
pub fn outl_daily_list(ws: &Workspace, args: DailyListArgs) -> Result<DailyList, Error> {
    let from = args
        .from
        .as_deref()
        .map(|d| parse_date(d, "/from"))
        .transpose()?;
    let to = args
        .to
        .as_deref()
        .map(|d| parse_date(d, "/to"))
        .transpose()?;
    let graph = ws.snapshot();
    let days = graph.journals().filter_map(|page| {
        let date = page.date()?;
        let in_range = from.is_none_or(|from| date >= from) && to.is_none_or(|to| date <= to);
        in_range.then_some((date, page))
    });
    let slice = paging::slice(days, args.limit, args.cursor.as_deref())?;
    Ok(DailyList {
        days: slice
            .items
            .into_iter()
            .map(|(date, page)| {
                let blocks = page.blocks();
                let blocks = blocks.preorder();
                DaySummary {
                    date: date.to_string(),
                    open_tasks: blocks
                        .iter()
                        .filter(|b| {
                            outl_format::task_marker(&b.text).is_some_and(|(m, _)| m.is_open())
                        })
                        .count(),
                    blocks: blocks.len(),
                }
            })
            .collect(),
        total: slice.total,
        next_cursor: slice.next_cursor,
    })
}

/// Append markdown blocks to a journal day, created if missing; returns the day and the blocks'
/// ids.
#[tool(payload = json)]
pub fn outl_daily_append(ws: &Workspace, args: DailyAppendArgs) -> Result<DailyWritten, Error> {
    let date = match args.date.as_deref() {
        Some(date) => parse_date(date, "/date")?,
        None => today()?,
    };
    // Checked before the day is created, so a refused call leaves nothing behind.
    // A day is named by its ISO date.
    let syntax = pages::text_syntax(ws, &date.to_string(), &args.md);
    let blocks = pages::blocks_to_append(ws, &args.md, syntax)?;
    let written = pages::WrittenIds::of(&blocks);
    // A day this creates is created by the same op, so that its undo takes the day away too.
    ws.edit_day(date, OpKind::PageAppend, |page| {
        page.blocks_mut().extend(blocks);
        Ok(())
    })?;
    Ok(DailyWritten {
        date: date.to_string(),
        blocks: written,
    })
}

/// The slice of a journal day that `window` holds: its blocks' outline and their markdown as
/// stored, the budget counting both.
fn daily_page(ws: &Workspace, page: &Page, window: Window) -> Result<DailyPage, Error> {
    let md = stored_markdown(ws, page)?;
    let (_, starts) = Syntax::of_file(&page.file).parse_with_starts(&md);
    let mut day = DailyPage {
        date: page.slug.clone(),
        meta: PageMeta::of(page, ws.config()),
        outline: Vec::new(),
        md: String::new(),
        cut: None,
    };
    let spent = wire_len(&day) + slices::CUT_BYTES;
    let block_md = |position: usize| {
        let one = Window {
            start: position,
            limit: 1,
            bytes: usize::MAX,
        };
        wire_len(slices::slice_markdown(&md, &starts, one).0)
    };
    (day.outline, day.cut) = outline::outline_slice(&page.blocks(), None, window, spent, block_md);
    let end = day
        .cut
        .as_ref()
        .and_then(|cut| cut.next_cursor.parse().ok())
        .unwrap_or(usize::MAX);
    let blocks = Window {
        limit: end - window.start,
        bytes: usize::MAX,
        ..window
    };
    day.md = slices::slice_markdown(&md, &starts, blocks).0.to_owned();
    Ok(day)
}

/// Today: `OUTL_TODAY` when set, else the local date.
fn today() -> Result<NaiveDate, Error> {
    match std::env::var(TODAY_VAR) {
        Ok(value) => iso_date(&value).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidArguments,
                format!("{TODAY_VAR}={value:?} is not a YYYY-MM-DD date; fix or unset it"),
            )
            .with_data(json!({ "env": TODAY_VAR, "value": value }))
        }),
        Err(_) => Ok(chrono::Local::now().date_naive()),
    }
}

/// A `YYYY-MM-DD` date, exactly.
fn iso_date(text: &str) -> Option<NaiveDate> {
    let text = text.trim();
    if text.len() != "YYYY-MM-DD".len() {
        return None;
    }
    NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()
}

/// The date of an argument, or `INVALID_ARGUMENTS` at `pointer`.
fn parse_date(text: &str, pointer: &str) -> Result<NaiveDate, Error> {
    iso_date(text).ok_or_else(|| {
        invalid_arguments(vec![Problem {
            pointer: pointer.to_string(),
            message: format!(
                "{} is not a date: expected YYYY-MM-DD, e.g. 2026-11-30",
                outl_workspace::quoted(text)
            ),
        }])
    })
}

/// The journal page of `date`, or `PAGE_NOT_FOUND` with the nearest days that have one.
fn journal(graph: &Graph, date: NaiveDate) -> Result<&Page, Error> {
    if let Some(page) = graph
        .resolve(&date.to_string())
        .filter(|page| page.date() == Some(date))
    {
        return Ok(page);
    }
    let mut days: Vec<NaiveDate> = graph.journals().filter_map(Page::date).collect();
    days.sort_by_key(|day| ((*day - date).num_days().abs(), *day));
    let suggestions: Vec<String> = days
        .into_iter()
        .take(NEARBY_DAYS)
        .map(|day| day.to_string())
        .collect();
    Err(Error::new(
        ErrorCode::PageNotFound,
        format!("no journal page for {date}"),
    )
    .with_data(json!({ "slug": date.to_string(), "suggestions": suggestions })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_exactly_iso() {
        assert_eq!(
            iso_date("2026-11-30"),
            NaiveDate::from_ymd_opt(2026, 11, 30)
        );
        for bad in [
            "2026-1-30",
            "2026_11_30",
            "30.11.2026",
            "2026-02-30",
            "today",
            "",
        ] {
            assert_eq!(iso_date(bad), None, "{bad}");
        }
        let error = parse_date("2026-13-01", "/from").unwrap_err();
        assert_eq!(error.code, ErrorCode::InvalidArguments);
        assert_eq!(error.data.unwrap()["problems"][0]["pointer"], "/from");
    }
}
