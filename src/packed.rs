//! Optional values in the space of the value alone, for the per-job structures a replay keeps for
//! every job of a log (a [`Job`](crate::workload::Job), a [`JobRecord`](crate::engine::JobRecord)):
//! `Option<SimTime>` takes 16 bytes and `Option<u32>` 8, while [`Option<PackedTime>`] takes 8 and
//! [`Option<UserId>`] 4, the `None` of each being one bit pattern the value never needs.
//!
//! A [`PackedTime`] holds the exact bits of its time (so every sum or difference made of it is the
//! same to the last bit), stored complemented in a [`NonZeroU64`]: the pattern left out is the NaN
//! whose bits are all ones, which no time of a replay is. A [`UserId`] holds any user number but
//! `u32::MAX`, stored as `u + 1`: larger user numbers are not kept (SWF user numbers count users
//! from 1; a missing one is −1).

use std::num::{NonZeroU32, NonZeroU64};

use crate::SimTime;

/// A time in 8 bytes within an `Option` (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct PackedTime(NonZeroU64);

impl PackedTime {
    /// `t`, unless it is the all-ones NaN (the only time left out).
    pub fn new(t: SimTime) -> Option<Self> {
        NonZeroU64::new(!t.to_bits()).map(PackedTime)
    }

    /// The time, bit for bit as given.
    pub fn get(self) -> SimTime {
        SimTime::from_bits(!self.0.get())
    }
}

impl std::fmt::Debug for PackedTime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

/// A user number in 4 bytes within an `Option` (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(NonZeroU32);

impl UserId {
    /// User `u`, unless it is `u32::MAX` (the only number left out).
    pub fn new(u: u32) -> Option<Self> {
        u.checked_add(1).and_then(NonZeroU32::new).map(UserId)
    }

    /// The user number.
    pub fn get(self) -> u32 {
        self.0.get() - 1
    }
}

impl std::fmt::Debug for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.get().fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_take_the_space_of_the_value() {
        assert_eq!(size_of::<Option<PackedTime>>(), 8);
        assert_eq!(size_of::<Option<UserId>>(), 4);
    }

    #[test]
    fn times_come_back_bit_for_bit() {
        let times = [
            0.0,
            -0.0,
            1e-300,
            3.5,
            -2.25,
            1e300,
            SimTime::INFINITY,
            SimTime::NAN,
        ];
        for t in times {
            let p = PackedTime::new(t).expect("kept");
            assert_eq!(p.get().to_bits(), t.to_bits(), "{t}");
        }
        assert_eq!(PackedTime::new(SimTime::from_bits(u64::MAX)), None);
    }

    #[test]
    fn users_come_back_but_the_largest_number() {
        for u in [0, 1, 17, u32::MAX - 1] {
            assert_eq!(UserId::new(u).map(UserId::get), Some(u));
        }
        assert_eq!(UserId::new(u32::MAX), None);
    }
}
