;;; eglot_review.el --- surehand's review in Emacs with eglot, in batch mode  -*- lexical-binding: t -*-
;;
;;   emacs --batch -q -l tests/emacs/eglot_review.el SPEC.json
;;
;; Visits a file with eglot managing it (the server command and settings from
;; SPEC.json), runs `surehand.ask' with `eglot-execute-command', waits for
;; surehand's diagnostics, then takes each step of `steps' in turn: point on
;; `line' (0-based), the code actions there (`eglot-code-actions'), and the one
;; whose title starts with `title' executed as eglot's menu executes it. It
;; waits for the outcome, which eglot shows as a `window/showMessage' line in
;; *Messages* (eglot announces none of surehand's notifications, so none
;; comes), and writes what happened as JSON to `result'.  Every wait is bounded; an error is written there too.
;; What Emacs shows is captured too: flymake's text of each surehand diagnostic
;; (what the echo area and `flymake-show-buffer-diagnostics' show) as first
;; published, and the *Messages* buffer (eglot's `window/showMessage' lines).
;;
;; SPEC.json: { cmd: [...], settings: {...}, file, task, steps: [{line, title}], result }

(require 'eglot)
(require 'json)
(require 'cl-lib)

(defconst surehand-ending "^\\[eglot\\] Server reports (type=[0-9]): surehand: \\(calc\\.py: .*\\)$"
  "A message eglot shows for the end of a task (its summary starts with the file).")

(defun surehand-outcome ()
  "The summary of the task's end, from the last message eglot showed for it; or nil."
  (with-current-buffer (messages-buffer)
    (save-excursion
      (goto-char (point-max))
      (when (re-search-backward surehand-ending nil t)
        (match-string-no-properties 1)))))

(defun surehand-wait (what check &optional seconds)
  "Let the server and timers run until CHECK gives non-nil; error after SECONDS.
Batch Emacs is never idle, so the idle timers (eglot sends its didChange from
one) run here as they would while the user pauses."
  (let ((deadline (+ (float-time) (or seconds 20))))
    (while (not (funcall check))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      (dolist (timer (copy-sequence timer-idle-list))
        (timer-event-handler timer)))))

(defun surehand-diagnostics ()
  "surehand's diagnostics in this buffer: (LINE . MESSAGE), in order."
  (sort (cl-loop for d in (flymake-diagnostics)
                 for lsp = (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))
                 when (equal (plist-get lsp :source) "surehand")
                 collect (cons (plist-get (plist-get (plist-get lsp :range) :start) :line)
                               (plist-get lsp :message)))
        (lambda (a b) (< (car a) (car b)))))

(defun surehand-flymake-texts ()
  "What flymake shows for each surehand diagnostic in this buffer, in order."
  (mapcar #'cdr
          (sort (cl-loop for d in (flymake-diagnostics)
                         for lsp = (cdr (assoc 'eglot-lsp-diag (flymake-diagnostic-data d)))
                         when (equal (plist-get lsp :source) "surehand")
                         collect (cons (flymake-diagnostic-beg d) (flymake-diagnostic-text d)))
                (lambda (a b) (< (car a) (car b))))))

(defun surehand-run (spec)
  (let* ((out (list :events nil))
         (cmd (plist-get spec :cmd))
         (settings (plist-get spec :settings))
         (offered nil)
         (seen nil))
    (setq eglot-confirm-server-initiated-edits nil) ; accepting is the user's yes
    (setq-default eglot-workspace-configuration (list :surehand settings))
    (add-to-list 'eglot-server-programs
                 `(python-mode . (,@cmd :initializationOptions ,settings)))
    (find-file (plist-get spec :file))
    (apply #'eglot (eglot--guess-contact))
    (surehand-wait "eglot to connect" (lambda () (eglot-current-server)) 30)
    (let* ((server (eglot-current-server))
           (asked (eglot-execute-command
                   server 'surehand.ask
                   (vector (list :task (plist-get spec :task)
                                 :uri (eglot--path-to-uri buffer-file-name))))))
      (setq out (plist-put out :asked asked))
      (surehand-wait "the review's diagnostics" (lambda () (surehand-diagnostics)))
      (push (surehand-diagnostics) seen)
      (setq out (plist-put out :shown (vconcat (surehand-flymake-texts))))
      (dolist (step (plist-get spec :steps))
        (goto-char (point-min))
        (forward-line (plist-get step :line))
        (let* ((before (surehand-diagnostics))
               (actions (eglot-code-actions (point) (point)))
               (title (plist-get step :title))
               (action (cl-find-if (lambda (a) (string-prefix-p title (plist-get a :title)))
                                   actions)))
          (push (mapcar (lambda (a) (plist-get a :title)) actions) offered)
          (unless action (error "No code action %s at line %s" title (plist-get step :line)))
          ;; What eglot's menu does with the action picked.
          (eglot--read-execute-code-action (list action) server "quickfix")
          (surehand-wait (format "a change after %s" title)
                         (lambda () (or (surehand-outcome)
                                        (not (equal (surehand-diagnostics) before)))))
          (push (surehand-diagnostics) seen)))
      (surehand-wait "the outcome's message" #'surehand-outcome)
      (setq out (plist-put out :outcome (surehand-outcome)))
      (setq out (plist-put out :text (buffer-substring-no-properties (point-min) (point-max))))
      (setq out (plist-put out :modified (if (buffer-modified-p) t :json-false)))
      (setq out (plist-put out :messages (with-current-buffer (messages-buffer)
                                           (buffer-substring-no-properties
                                            (point-min) (point-max)))))
      (setq out (plist-put out :offered (vconcat (mapcar #'vconcat (nreverse offered)))))
      (setq out (plist-put out :seen
                           (vconcat (mapcar (lambda (ds)
                                              (vconcat (mapcar (lambda (d)
                                                                 (list :line (car d)
                                                                       :message (cdr d)))
                                                               ds)))
                                            (nreverse seen)))))
      (ignore-errors (eglot-shutdown server)))
    out))

(let* ((spec-file (car command-line-args-left))
       (spec (with-temp-buffer
               (insert-file-contents spec-file)
               (json-parse-buffer :object-type 'plist :array-type 'list
                                  :null-object nil :false-object :json-false)))
       (out (condition-case err
                (surehand-run spec)
              (error (list :error (format "%S" err))))))
  (with-temp-file (plist-get spec :result)
    (insert (json-serialize out :null-object nil :false-object :json-false)))
  (kill-emacs (if (plist-get out :error) 1 0)))
