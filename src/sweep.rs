//! Parameter sweeps: scheduler × allocator × load factor, in parallel, bit-identical to serial.
