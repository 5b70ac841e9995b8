-- The calls awaiting a person's approval, in the order they were asked (`oncely serve`'s inbox
-- pages through them): only those rows, in that order.
CREATE INDEX IF NOT EXISTS oncely_effects_awaiting ON oncely_effects (updated_at, scope, key)
    WHERE state = 'awaiting-approval';
