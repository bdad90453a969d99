//! Optional values in the space of the value alone, for the per-job structures a replay keeps for
//! every job of a log (a [`Job`](crate::workload::Job), a [`JobRecord`](crate::engine::JobRecord)):
//! `Option<SimTime>` takes 16 bytes and `Option<u32>` 8, while [`Option<PackedTime>`] takes 8 and
//! [`Option<UserId>`] 4, the `None` of each being one bit pattern the value never needs.
//!
//! A [`PackedTime`] holds the exact bits of its time (so every sum or difference made of it is the
//! same to the last bit), stored complemented in a [`NonZeroU64`]: the pattern left out is the NaN
//! whose bits are all ones, which no time of a replay is. A [`UserId`] (and a [`GroupId`],
//! [`QueueId`], [`PartitionId`]) holds any number but `u32::MAX`, stored as `n + 1`: larger numbers
//! are not kept (SWF numbers of users, groups, queues and partitions count from 0 or 1; a missing
//! one is −1).

use std::num::{NonZeroU32, NonZeroU64};

use crate::SimTime;

/// A time in 8 bytes within an `Option` (see the module doc).
#[derive(Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
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

/// Declares a number kept in 4 bytes within an `Option` (see the module doc): any `u32` but
/// `u32::MAX`, stored as `n + 1`.
macro_rules! packed_id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
        pub struct $name(NonZeroU32);

        impl $name {
            /// Number `n`, unless it is `u32::MAX` (the only number left out).
            pub fn new(n: u32) -> Option<Self> {
                n.checked_add(1).and_then(NonZeroU32::new).map($name)
            }

            /// The number.
            pub fn get(self) -> u32 {
                self.0.get() - 1
            }

            /// The number of an SWF field (`None` for a missing or negative value, or one beyond
            /// `u32::MAX − 1`).
            pub fn from_swf(field: Option<i64>) -> Option<Self> {
                field.and_then(|n| u32::try_from(n).ok()).and_then(Self::new)
            }
        }

        impl std::fmt::Debug for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.get().fmt(f)
            }
        }
    };
}

packed_id!(
    /// A user number (SWF field 12) in 4 bytes within an `Option`.
    UserId
);
packed_id!(
    /// A group number (SWF field 13) in 4 bytes within an `Option`.
    GroupId
);
packed_id!(
    /// A queue number (SWF field 15) in 4 bytes within an `Option`.
    QueueId
);
packed_id!(
    /// A partition number (SWF field 16) in 4 bytes within an `Option`.
    PartitionId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_take_the_space_of_the_value() {
        assert_eq!(size_of::<Option<PackedTime>>(), 8);
        assert_eq!(size_of::<Option<UserId>>(), 4);
        assert_eq!(size_of::<Option<GroupId>>(), 4);
        assert_eq!(size_of::<Option<QueueId>>(), 4);
        assert_eq!(size_of::<Option<PartitionId>>(), 4);
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
        assert_eq!(GroupId::from_swf(Some(7)).map(GroupId::get), Some(7));
        assert_eq!(QueueId::from_swf(Some(-1)), None);
        assert_eq!(PartitionId::from_swf(Some(i64::from(u32::MAX))), None);
        assert_eq!(PartitionId::from_swf(None), None);
    }
}
