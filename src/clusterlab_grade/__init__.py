"""The classroom grader of the teaching kit: exercise format (master), sandbox, runner and judge, class folder,
the gradebook and the teacher's loop. Command line: ``clusterlab-grade`` (:mod:`clusterlab_grade.cli`)."""
