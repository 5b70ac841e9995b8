//! The idem host (stub): runs the core component; grows in its own issue.
