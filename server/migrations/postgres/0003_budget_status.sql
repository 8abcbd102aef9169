-- A debate cut short by its token budget ends with status 'budget_exhausted'.
ALTER TABLE debates DROP CONSTRAINT debates_status_check;
ALTER TABLE debates ADD CONSTRAINT debates_status_check
    CHECK (status IN ('running', 'finished', 'interrupted', 'budget_exhausted'));
