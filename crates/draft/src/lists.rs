//! The editor's list operations (turns, calls, rubrics, events): each item has a key that stays
//! with it when the list is reordered, so the page can find it after a move.

use super::model::Key;

pub trait Keyed: Clone {
    fn key(&self) -> Key;
    /// Gives the item (and anything it holds) fresh keys from `next`, for a copy.
    fn rekey(&mut self, next: &mut Key);
}

/// Moves the item `key` by `delta` places (−1 up, +1 down); false at either end.
pub fn move_item<T: Keyed>(list: &mut [T], key: Key, delta: isize) -> bool {
    let Some(from) = list.iter().position(|item| item.key() == key) else {
        return false;
    };
    let to = from as isize + delta;
    if to < 0 || to as usize >= list.len() {
        return false;
    }
    list.swap(from, to as usize);
    true
}

/// Moves the item `key` to where `target` is (a drop onto another item); false if either is missing.
pub fn move_to<T: Keyed>(list: &mut Vec<T>, key: Key, target: Key) -> bool {
    let (Some(from), Some(to)) = (
        list.iter().position(|item| item.key() == key),
        list.iter().position(|item| item.key() == target),
    ) else {
        return false;
    };
    let item = list.remove(from);
    list.insert(to, item);
    from != to
}

pub fn remove_item<T: Keyed>(list: &mut Vec<T>, key: Key) {
    list.retain(|item| item.key() != key);
}

/// Puts a copy of the item `key` right after it; answers the copy's key.
pub fn duplicate_item<T: Keyed>(list: &mut Vec<T>, key: Key, next: &mut Key) -> Option<Key> {
    let at = list.iter().position(|item| item.key() == key)?;
    let mut copy = list[at].clone();
    copy.rekey(next);
    let copy_key = copy.key();
    list.insert(at + 1, copy);
    Some(copy_key)
}
