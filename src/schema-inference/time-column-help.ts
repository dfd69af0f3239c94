/** What `--time-column` (and a manifest's `infer.timeColumn`) chooses, and what the inference takes without it: one text for every place that says it. */
export const TIME_COLUMN_HELP = 'the date-time column (default: the one column whose values are dates (epoch seconds, milliseconds or days, or dates as text), else time, filled with now())';
