# The grader in a container, for instructors without Linux's sandbox (macOS, Windows):
# run one fresh container per submission, with a read-only file system and no network
# (book/instructors.md gives the commands). Inside, the grader runs as root and the
# student's code as user 65534, which cannot enter /root, where the course is mounted.
# Not built by this repository's tests, which have no base image to start from.
FROM python:3.11.7-slim-bookworm
COPY requirements.txt /opt/book/requirements.txt
RUN pip install --no-cache-dir -r /opt/book/requirements.txt && chmod 0700 /root
COPY grading /opt/book/grading
COPY upkeep /opt/book/upkeep
COPY normbook /opt/book/normbook
WORKDIR /opt/book
ENV OMP_NUM_THREADS=1 MPLCONFIGDIR=/tmp/matplotlib
ENTRYPOINT ["python", "-m", "grading.grade", \
            "--unsafe-no-sandbox", "--student-uid", "65534"]
