"""Where players meet, between the players and training: the tournament harness
(`tournament`: seat-rotated games with paired deals), the statistics and ratings of its
results (`stats`), and the named benchmark tasks (`benchmark`)."""
