"""The static site: pages and charts rendered from the database."""
