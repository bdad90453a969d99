//! Standard Workload Format (SWF): records, header, streaming parser.

mod record;

pub use record::Record;
