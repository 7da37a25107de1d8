"""What students and readers get: the release (``release``, with its delegation
probe in ``probe`` and ``probe_watch``), the student bundle (``bundle``) and
the website (``site``, ``site_pages``, ``site_links``; its Chinese edition
``site_zh``), and the students branch the site's hub links open
(``students_branch``). ``leaks`` is the one
leak scan they all run before anything reaches a student or a reader. ``image_check``
builds the Kubernetes user image's Python layer in a venv and checks it."""
