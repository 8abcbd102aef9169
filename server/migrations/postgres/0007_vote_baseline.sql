-- QL-1: whether the debate changed the outcome a plain vote of the first positions would have
-- given (NULL for debates still running, interrupted, or decided before the baseline existed).
ALTER TABLE debates ADD COLUMN changed_outcome BOOLEAN;
