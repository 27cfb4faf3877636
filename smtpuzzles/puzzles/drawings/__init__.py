"""The built-in puzzles' SVG drawings (each puzzle's `draw` hook calls its module here), drawn with
`smtpuzzles.drawing`. Kept beside the puzzles rather than in them: the puzzle modules hold the rules,
encoders and referees, and a drawing is only a picture of an answer they have already checked."""
