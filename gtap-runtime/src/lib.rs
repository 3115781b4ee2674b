//! Host runtime (stub; being written).
