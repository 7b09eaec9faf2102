//! Tasks in one pass: the messages of a task that hold other messages ([`pb::Task`], its three
//! kinds, [`pb::MatchEntrant`], [`pb::Entrant`]), and a network's id, which every entrant
//! carries. The messages they hold that hold nothing nested worth the trouble (rules, origins,
//! sources, fixed players, pairings, a knockout's seed) are measured and written by prost,
//! their lengths still measured once.

use super::{OnePass, field_len, measure_nested, put_key, put_varint, write_header, write_nested};
use crate::pb;
use prost::Message;
use prost::bytes::BufMut;
use prost::encoding::{WireType, encoded_len_varint};

/// Bytes of a varint field (tag below 16) holding `value`; proto3 leaves out a zero.
fn varint_len(value: u64) -> usize {
    if value == 0 { 0 } else { 1 + encoded_len_varint(value) }
}

fn write_varint(tag: u32, value: u64, buf: &mut impl BufMut) {
    if value != 0 {
        put_key(tag, WireType::Varint, buf);
        put_varint(value, buf);
    }
}

/// An enum or int32 as its varint: negative values sign-extended to ten bytes, as prost does.
fn enum_value(value: i32) -> u64 {
    i64::from(value) as u64
}

/// Measures a message prost writes (one with nothing nested to measure again): its length
/// pushed for the write.
fn measure_leaf(message: &impl Message, lengths: &mut Vec<usize>) -> usize {
    let body = message.encoded_len();
    lengths.push(body);
    field_len(body)
}

fn write_leaf(tag: u32, message: &impl Message, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
    write_header(tag, lengths, next, buf);
    message.encode_raw(buf);
}

/// Bytes of a [`pb::ChromosomeId`]: two fixed64 fields, each left out when zero.
fn id_body(id: &pb::ChromosomeId) -> usize {
    9 * (usize::from(id.high != 0) + usize::from(id.low != 0))
}

/// A [`pb::ChromosomeId`] as field `tag`, by hand: four of them in most tasks.
fn write_id(tag: u32, id: &pb::ChromosomeId, buf: &mut impl BufMut) {
    put_key(tag, WireType::LengthDelimited, buf);
    put_varint(id_body(id) as u64, buf);
    for (field, half) in [(1, id.high), (2, id.low)] {
        if half != 0 {
            put_key(field, WireType::SixtyFourBit, buf);
            buf.put_u64_le(half);
        }
    }
}

/// Bytes of a string or bytes field (tag below 16); proto3 leaves out an empty one.
fn bytes_len(bytes: &[u8]) -> usize {
    if bytes.is_empty() { 0 } else { field_len(bytes.len()) }
}

fn write_bytes(tag: u32, bytes: &[u8], buf: &mut impl BufMut) {
    if !bytes.is_empty() {
        put_key(tag, WireType::LengthDelimited, buf);
        put_varint(bytes.len() as u64, buf);
        buf.put_slice(bytes);
    }
}

impl OnePass for pb::Task {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        use pb::task::Kind;
        let kind = match &self.kind {
            None => 0,
            Some(Kind::Tournament(t)) => field_len(measure_nested(t, lengths)),
            Some(Kind::Benchmark(b)) => field_len(measure_nested(b, lengths)),
            Some(Kind::Match(m)) => field_len(measure_nested(m, lengths)),
        };
        varint_len(self.id) + kind
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        use pb::task::Kind;
        write_varint(1, self.id, buf);
        match &self.kind {
            None => {}
            Some(Kind::Tournament(t)) => write_nested(2, t, lengths, next, buf),
            Some(Kind::Benchmark(b)) => write_nested(3, b, lengths, next, buf),
            Some(Kind::Match(m)) => write_nested(4, m, lengths, next, buf),
        }
    }
}

impl OnePass for pb::TournamentTask {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        let entrants: usize = self.entrants.iter().map(|e| field_len(measure_nested(e, lengths))).sum();
        let rules = self.rules.as_ref().map_or(0, |r| measure_leaf(r, lengths));
        entrants + rules + varint_len(self.depth.into()) + varint_len(self.seed)
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        for entrant in &self.entrants {
            write_nested(1, entrant, lengths, next, buf);
        }
        if let Some(rules) = &self.rules {
            write_leaf(2, rules, lengths, next, buf);
        }
        write_varint(3, self.depth.into(), buf);
        write_varint(4, self.seed, buf);
    }
}

impl OnePass for pb::BenchmarkTask {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        let entrant = self.entrant.as_ref().map_or(0, |e| field_len(measure_nested(e, lengths)));
        let rules = self.rules.as_ref().map_or(0, |r| measure_leaf(r, lengths));
        entrant
            + varint_len(enum_value(self.reference))
            + varint_len(self.reference_depth.into())
            + varint_len(self.depth.into())
            + rules
            + varint_len(self.seed)
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        if let Some(entrant) = &self.entrant {
            write_nested(1, entrant, lengths, next, buf);
        }
        write_varint(2, enum_value(self.reference), buf);
        write_varint(3, self.reference_depth.into(), buf);
        write_varint(4, self.depth.into(), buf);
        if let Some(rules) = &self.rules {
            write_leaf(5, rules, lengths, next, buf);
        }
        write_varint(6, self.seed, buf);
    }
}

impl OnePass for pb::MatchTask {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        use pb::match_task::Format;
        let entrants: usize = self.entrants.iter().map(|e| field_len(measure_nested(e, lengths))).sum();
        let rules = self.rules.as_ref().map_or(0, |r| measure_leaf(r, lengths));
        let format = match &self.format {
            None => 0,
            Some(Format::Pairs(p)) => measure_leaf(p, lengths),
            Some(Format::Knockout(k)) => measure_leaf(k, lengths),
        };
        entrants + varint_len(self.network_depth.into()) + rules + format
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        use pb::match_task::Format;
        for entrant in &self.entrants {
            write_nested(1, entrant, lengths, next, buf);
        }
        write_varint(2, self.network_depth.into(), buf);
        if let Some(rules) = &self.rules {
            write_leaf(3, rules, lengths, next, buf);
        }
        match &self.format {
            None => {}
            Some(Format::Pairs(p)) => write_leaf(4, p, lengths, next, buf),
            Some(Format::Knockout(k)) => write_leaf(5, k, lengths, next, buf),
        }
    }
}

impl OnePass for pb::MatchEntrant {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        use pb::match_entrant::Kind;
        match &self.kind {
            None => 0,
            Some(Kind::Network(e)) => field_len(measure_nested(e, lengths)),
            Some(Kind::Fixed(f)) => measure_leaf(f, lengths),
        }
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        use pb::match_entrant::Kind;
        match &self.kind {
            None => {}
            Some(Kind::Network(e)) => write_nested(1, e, lengths, next, buf),
            Some(Kind::Fixed(f)) => write_leaf(2, f, lengths, next, buf),
        }
    }
}

impl OnePass for pb::Entrant {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        // Packed floats, four bytes each; proto3 leaves out an empty list.
        let weights = if self.weights.is_empty() { 0 } else { field_len(4 * self.weights.len()) };
        let id = self.id.as_ref().map_or(0, |id| field_len(id_body(id)));
        let origin = self.origin.as_ref().map_or(0, |o| measure_leaf(o, lengths));
        let sources: usize = self.sources.iter().map(|s| measure_leaf(s, lengths)).sum();
        varint_len(self.serial)
            + bytes_len(self.topology.as_bytes())
            + weights
            + id
            + bytes_len(&self.weights_le)
            + origin
            + sources
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        write_varint(1, self.serial, buf);
        write_bytes(2, self.topology.as_bytes(), buf);
        if !self.weights.is_empty() {
            put_key(3, WireType::LengthDelimited, buf);
            put_varint(4 * self.weights.len() as u64, buf);
            for &w in &self.weights {
                buf.put_f32_le(w);
            }
        }
        if let Some(id) = &self.id {
            write_id(4, id, buf);
        }
        write_bytes(5, &self.weights_le, buf);
        if let Some(origin) = &self.origin {
            write_leaf(6, origin, lengths, next, buf);
        }
        for source in &self.sources {
            write_leaf(7, source, lengths, next, buf);
        }
    }
}
