//! The index as the cache saves it.

use compact_str::CompactString;
use hashbrown::HashTable;

use super::Index;
use super::contributions::Lists;
use super::numbering::{Held, Numbering, Tables, hash_of};
use super::search::Search;
use crate::codec::{Corrupt, Decoder, Encoder, Persist, persist_fields, put_all};
persist_fields!(Index {
    tables,
    lists,
    search
});

impl Persist for Numbering {
    /// The strings by number, the free numbers, and the numbers the lookup finds (which, of
    /// numbers with one string, is the newest).
    fn put(&self, out: &mut Encoder) {
        self.names.put(out);
        self.free.put(out);
        put_all(self.lookup.iter(), out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        let names: Vec<CompactString> = Vec::take(input)?;
        let free = Vec::take(input)?;
        let found: Vec<u32> = Vec::take(input)?;
        let name_of = |n: u32| names.get(n as usize).map_or("", CompactString::as_str);
        let mut lookup = HashTable::with_capacity(found.len());
        for n in found {
            if n as usize >= names.len() {
                return Err(Corrupt);
            }
            lookup.insert_unique(hash_of(name_of(n)), n, |&m| hash_of(name_of(m)));
        }
        Ok(Numbering {
            names,
            lookup,
            free,
        })
    }
}

persist_fields!(Tables {
    slugs,
    page_blocks,
    ids,
    block_pages
});

impl Persist for Held {
    fn put(&self, out: &mut Encoder) {
        self.0.put(out);
    }
    fn take(input: &mut Decoder<'_>) -> Result<Self, Corrupt> {
        u32::take(input).map(Held)
    }
}

persist_fields!(Lists {
    outgoing,
    backlinks,
    tags,
    tasks,
    properties,
    block_refs
});

persist_fields!(Search {
    language,
    postings,
    long_tf,
    lens,
    headings,
    total_len,
    live,
    names
});

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GraphConfig;
    use crate::index::tests::{observable, page, page_in, sample_pages};
    use crate::model::Page;

    #[test]
    fn a_saved_index_reads_back_the_same_and_goes_on_updating_alike() {
        let mut pages = sample_pages();
        let mut index = Index::default();
        for page in &pages {
            index.update(None, Some(page), &GraphConfig::default());
        }
        // Free numbers, and an id taken over by another page, are saved too.
        index.update(Some(&pages[7]), None, &GraphConfig::default());
        pages.remove(7);
        let mut taker = pages[2].clone();
        taker.blocks_mut().push(pages[3].blocks()[0].clone());
        index.update(Some(&pages[2]), Some(&taker), &GraphConfig::default());
        pages[2] = taker;

        let mut restored = crate::codec::round_trip(&index).expect("decodes");
        let same = |a: &Index, b: &Index, pages: &[Page]| {
            assert_eq!(observable(a), observable(b));
            assert_eq!(a.block_count(), b.block_count());
            for query in [
                "budget",
                "\"shared words\"",
                "same text",
                "σοφος",
                "page",
                "求域",
            ] {
                let by_slug = page_in(pages);
                assert_eq!(
                    a.search(query, 0, usize::MAX, &by_slug),
                    b.search(query, 0, usize::MAX, &by_slug),
                    "{query}"
                );
            }
        };
        same(&index, &restored, &pages);
        let added = page("Omega", "- same text in every page #topic1\n", "o");
        let edited = page("Page 30", "- budget budget [[Omega]]\n", "p30y");
        for one in [&mut index, &mut restored] {
            one.update(None, Some(&added), &GraphConfig::default());
            one.update(Some(&pages[29]), Some(&edited), &GraphConfig::default());
            one.update(Some(&pages[0]), None, &GraphConfig::default());
        }
        pages.push(added);
        pages[29] = edited;
        pages.remove(0);
        same(&index, &restored, &pages);
    }
}
