"""A class on Redis: the lab's own queue of training jobs, its workers, and finished runs shared by replicas."""
