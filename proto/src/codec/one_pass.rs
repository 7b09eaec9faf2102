//! Replies that carry leased tasks, encoded with each nested length computed once (issue 14).
//!
//! prost writes a nested message's length before the message, and computes it by walking the
//! message; the walk recurses, so in a `DeliveryBatchReply` (answers, each a reply, each with
//! tasks, each a match of entrants, each a network with an id) the innermost fields were
//! measured once for every message around them, and twice more for the whole reply (the
//! codec's reservation and its choice of buffer): eight walks for one write. Here the messages
//! that hold others are measured once, their lengths pushed onto a list in the order the
//! encoding meets them, and the writing reads the list: the replies
//! ([`pb::DeliveryBatchReply`], [`pb::DeliverReply`], [`pb::CompleteReply`], [`pb::LeaseReply`])
//! here, the tasks in [`tasks`]. The bytes are prost's, byte for byte: the tests compare them
//! over random messages of every kind, and check against `loa.proto` that these messages have
//! exactly the fields written here.

mod tasks;

use crate::pb;
use prost::Message;
use prost::bytes::BufMut;
use prost::encoding::{WireType, encoded_len_varint};

/// A message encoded in two passes: [`OnePass::measure`] pushes the lengths of its nested
/// messages in the order [`OnePass::write`] needs them, and returns its own encoded length.
pub(super) trait OnePass {
    /// The message's encoded length; the lengths of the messages in it pushed onto `lengths`,
    /// in the order they are written.
    fn measure(&self, lengths: &mut Vec<usize>) -> usize;
    /// Writes the message (its fields, without a length of its own), reading the lengths its
    /// [`OnePass::measure`] pushed, from `next` on.
    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut);
}

/// Bytes a length-delimited field of a tag below 16 takes around a body of `len` bytes.
fn field_len(len: usize) -> usize {
    1 + encoded_len_varint(len as u64) + len
}

/// A field's key, one byte for a tag below 16 (every tag written here): inlined, where prost's
/// `encode_key` and `encode_varint` are calls, a fifth of the writing's time by `perf`.
#[inline]
fn put_key(tag: u32, wire_type: WireType, buf: &mut impl BufMut) {
    debug_assert!(tag < 16, "a key of one byte");
    buf.put_u8(((tag << 3) | wire_type as u32) as u8);
}

/// A varint (LEB128), inlined, its bytes written at once.
#[inline]
fn put_varint(mut value: u64, buf: &mut impl BufMut) {
    if value < 0x80 {
        buf.put_u8(value as u8);
        return;
    }
    let mut bytes = [0u8; 10];
    let mut n = 0;
    while value >= 0x80 {
        bytes[n] = (value as u8) | 0x80;
        value >>= 7;
        n += 1;
    }
    bytes[n] = value as u8;
    buf.put_slice(&bytes[..=n]);
}

/// The key and length of a length-delimited field whose body is the next measured length.
fn write_header(tag: u32, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
    put_key(tag, WireType::LengthDelimited, buf);
    put_varint(lengths[*next] as u64, buf);
    *next += 1;
}

/// Measures `tasks`, a repeated field of tag below 16.
fn measure_tasks(tasks: &[pb::Task], lengths: &mut Vec<usize>) -> usize {
    tasks.iter().map(|task| field_len(measure_nested(task, lengths))).sum()
}

fn write_tasks(tag: u32, tasks: &[pb::Task], lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
    for task in tasks {
        write_nested(tag, task, lengths, next, buf);
    }
}

impl OnePass for pb::LeaseReply {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        measure_tasks(&self.tasks, lengths)
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        write_tasks(1, &self.tasks, lengths, next, buf);
    }
}

impl OnePass for pb::CompleteReply {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        // An enum is an int32: a negative value takes ten bytes, as prost writes it.
        let completion = if self.completion == 0 { 0 } else { 1 + encoded_len_varint(self.completion as u64) };
        completion + measure_tasks(&self.tasks, lengths)
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        if self.completion != 0 {
            put_key(1, WireType::Varint, buf);
            put_varint(self.completion as u64, buf);
        }
        write_tasks(2, &self.tasks, lengths, next, buf);
    }
}

impl OnePass for pb::DeliverReply {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        use pb::deliver_reply::Answer;
        match &self.answer {
            None => 0,
            Some(Answer::Reply(reply)) => field_len(measure_nested(reply, lengths)),
            // Rare (a refused outcome) and small: prost's length, pushed for the write.
            Some(Answer::Error(error)) => {
                let body = error.encoded_len();
                lengths.push(body);
                field_len(body)
            }
        }
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        use pb::deliver_reply::Answer;
        match &self.answer {
            None => {}
            Some(Answer::Reply(reply)) => write_nested(1, reply, lengths, next, buf),
            Some(Answer::Error(error)) => {
                write_header(2, lengths, next, buf);
                error.encode_raw(buf);
            }
        }
    }
}

impl OnePass for pb::DeliveryBatchReply {
    fn measure(&self, lengths: &mut Vec<usize>) -> usize {
        self.answers.iter().map(|answer| field_len(measure_nested(answer, lengths))).sum()
    }

    fn write(&self, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
        for answer in &self.answers {
            write_nested(1, answer, lengths, next, buf);
        }
    }
}

/// Writes a nested message measured by [`measure_nested`]: its header, then its fields.
fn write_nested(tag: u32, message: &impl OnePass, lengths: &[usize], next: &mut usize, buf: &mut impl BufMut) {
    write_header(tag, lengths, next, buf);
    message.write(lengths, next, buf);
}

/// Measures a nested message: its length goes before the lengths of what it holds, where its
/// header will be written.
fn measure_nested(message: &impl OnePass, lengths: &mut Vec<usize>) -> usize {
    let at = lengths.len();
    lengths.push(0);
    let body = message.measure(lengths);
    lengths[at] = body;
    body
}

#[cfg(test)]
mod tests;
